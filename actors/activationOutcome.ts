import type { Actor } from 'xstate';
import { ActivationError, ErrorType } from '../spec/errors.ts';
import type { coinActivationMachine } from '../machines/coinActivation.machine.ts';
import type { ActivatedCoin, ActivatedToken, ActivationPlan, ActivationSummary, TokenPlan } from '../machines/activation.types.ts';

/**
 * What an accepted activation resolves with: the coin with this request's tokens only, and the
 * summary its `CoinActivated` event recorded (the v2 result and a task's result render it).
 */
export interface Activation extends ActivatedCoin {
  readonly summary: ActivationSummary;
}

/**
 * Settles with how attempt `attempt` of a coin actor ended: the activation, or the recorded error
 * (`InternalError` when cancelled). `onChainRead` runs when it succeeded, before anything is durable.
 */
export function activationOutcome(
  actor: Actor<typeof coinActivationMachine>,
  attempt: number,
  plan: ActivationPlan,
  onChainRead?: () => void,
): Promise<Activation> {
  return new Promise<Activation>((resolve, reject) => {
    // Stopping the actor (service shutdown) aborts the chain work and leaves it in `activating`:
    // settle then too, or the request would wait forever.
    const stopped = () => new ActivationError(ErrorType.InternalError, `activation of ${plan.ticker} was abandoned: the service is stopping`);
    const sub = actor.subscribe({
      next: (snapshot) => {
        if (snapshot.status === 'stopped') {
          sub.unsubscribe();
          reject(stopped());
          return;
        }
        if (snapshot.context.attempt !== attempt || snapshot.matches('activating')) return;
        sub.unsubscribe();
        const { coin, summary, lastError } = snapshot.context;
        if (snapshot.matches('active') && coin !== null && summary !== null) {
          onChainRead?.();
          resolve({ ...coin, tokens: coin.tokens.filter((t) => plan.tokens.includes(t.ticker)), summary });
        } else {
          reject(lastError ?? new ActivationError(ErrorType.InternalError, `activation of ${plan.ticker} was cancelled`));
        }
      },
      complete: () => reject(stopped()),
    });
  });
}

/**
 * Settles with how the addition of `token` to a platform actor ended: the token as read with the
 * platform as it is then, or the recorded error (`TokenActivationFailed`).
 */
export function tokenOutcome(actor: Actor<typeof coinActivationMachine>, token: TokenPlan): Promise<{ token: ActivatedToken; platform: ActivatedCoin }> {
  return new Promise((resolve, reject) => {
    const stopped = () => new ActivationError(ErrorType.InternalError, `activation of ${token.ticker} was abandoned: the service is stopping`);
    const done = () => {
      activated.unsubscribe();
      failed.unsubscribe();
      sub.unsubscribe();
    };
    const activated = actor.on('TokenActivated', (event) => {
      if (event.data.ticker !== token.ticker) return;
      done();
      const coin = actor.getSnapshot().context.coin;
      const read = coin?.tokens.find((t) => t.ticker === token.ticker);
      if (coin === null || read === undefined) reject(new ActivationError(ErrorType.InternalError, `token ${token.ticker} is not on ${token.platform}`));
      else resolve({ token: read, platform: coin });
    });
    const failed = actor.on('TokenActivationFailed', (event) => {
      if (event.data.ticker !== token.ticker) return;
      done();
      const { errorType, message, data } = event.data.error;
      reject(new ActivationError(errorType as ErrorType, message, data));
    });
    const sub = actor.subscribe({
      next: (snapshot) => {
        if (snapshot.status !== 'stopped') return;
        done();
        reject(stopped());
      },
      complete: () => {
        done();
        reject(stopped());
      },
    });
  });
}
