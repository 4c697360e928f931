/**
 * Withdrawals (issue 25, docs/compatibility.md §23): `withdraw` and `task::withdraw` build and sign
 * through the coin's family (never broadcasting); `send_raw_transaction` broadcasts. Each signed
 * withdrawal is recorded as `WithdrawalSigned`, each broadcast as `TransactionBroadcast`, on the
 * coin's stream (the platform's, for a token), before the answer.
 */
import { ActivationError, ErrorType } from '../spec/errors.ts';
import type { CoinEntry } from '../spec/coins.ts';
import type { WithdrawOrder } from '../spec/withdraw.ts';
import type { WithdrawalSummary } from '../spec/events.ts';
import { summarizeWithdrawal } from '../spec/render/withdrawResult.ts';
import { coinStream, type EventLog } from '../events/log/eventLog.ts';
import type { ActivationService } from './activationService.ts';
import type { ChainFamilies } from './chainFamilies.ts';
import type { CoinsCatalog } from './ports/coinsCatalog.ts';
import type { KeyProvider } from './ports/keyProvider.ts';
import type { ActiveCoinView, WithdrawCapability, WithdrawSigner } from './ports/withdraw.ts';
import { withdrawOrder, type WithdrawCommand } from './withdrawCommand.ts';
import { resolveSender } from './withdrawSender.ts';

/** A withdrawal checked against its coin, ready to be signed. */
export interface ResolvedWithdrawal {
  readonly view: ActiveCoinView;
  readonly order: WithdrawOrder;
  readonly capability: WithdrawCapability;
  /** The coin's key is a hardware device's: only `task::withdraw` signs (on the device). */
  readonly hardware: boolean;
  /** The coins entry the key provider derives the sender's key with (the platform's). */
  readonly keyCoin: CoinEntry;
}

/** `NoSuchCoin {coin}` (404, the reference's `WithdrawError::NoSuchCoin`). */
export const noSuchCoin = (ticker: string) => new ActivationError(ErrorType.NoSuchCoin, `No such coin: ${ticker}`, { coin: ticker }, { httpStatus: 404 });

export interface WithdrawServiceDeps {
  readonly log: EventLog;
  readonly service: Pick<ActivationService, 'enabledCoin'>;
  readonly families: Pick<ChainFamilies, 'withdrawal'>;
  readonly coins: CoinsCatalog;
  readonly keys: KeyProvider;
}

export class WithdrawService {
  readonly #deps: WithdrawServiceDeps;

  constructor(deps: WithdrawServiceDeps) {
    this.#deps = deps;
  }

  /** Every check that needs no chain: the coin, its family's support, the sender, amount and fee units. */
  resolve(command: WithdrawCommand): ResolvedWithdrawal {
    const { view, capability, hardwareKey } = this.#viewOf(command.ticker);
    const coin = view.platform;
    const keyCoin = this.#deps.coins.find(coin.ticker);
    if (keyCoin === undefined) throw noSuchCoin(command.ticker); // an enabled coin always has its entry
    const order = withdrawOrder(command, view.decimals, coin.decimals, resolveSender(coin, command.from));
    return { view, order, capability, hardware: hardwareKey, keyCoin };
  }

  /** The enabled coin (or token) `ticker` as its family sees it, and its family's capability; `NoSuchCoin` otherwise. */
  #viewOf(ticker: string): { view: ActiveCoinView; capability: WithdrawCapability; hardwareKey: boolean } {
    const found = this.#deps.service.enabledCoin(ticker);
    if (found === undefined) throw noSuchCoin(ticker);
    const { coin, token, hardwareKey } = found;
    const capability = this.#deps.families.withdrawal(coin, ticker);
    const entry = this.#deps.coins.find(ticker);
    if (entry === undefined) throw noSuchCoin(ticker); // an enabled coin always has its entry
    const view: ActiveCoinView = { ticker, platform: coin, ...(token === undefined ? {} : { token }), decimals: token?.decimals ?? coin.decimals, entry };
    return { view, capability, hardwareKey };
  }

  /** `withdraw`: signs with the service's key; a hardware coin signs only through `task::withdraw`, as the reference. */
  async withdraw(command: WithdrawCommand, signal: AbortSignal): Promise<WithdrawalSummary> {
    const resolved = this.resolve(command);
    if (resolved.hardware) {
      const message = 'Hardware wallet withdrawals are signed on the device through task::withdraw::init, not through withdraw';
      throw new ActivationError(ErrorType.UnsupportedError, message, message);
    }
    return this.sign(resolved, this.keySigner(resolved), signal);
  }

  /** The key provider's signer for the sender of `resolved`. */
  keySigner(resolved: ResolvedWithdrawal): WithdrawSigner {
    const { keys } = this.#deps;
    const sign = keys.signDigest;
    if (sign === undefined) throw new ActivationError(ErrorType.SigningError, 'the key provider cannot sign', 'the key provider cannot sign');
    const path = resolved.order.sender.addressPath;
    return { kind: 'key', signDigest: (digest) => sign.call(keys, resolved.keyCoin, keys.derivationMethod === 'Iguana' ? undefined : path, digest) };
  }

  /** Builds and signs through the family, records `WithdrawalSigned`, answers the summary. */
  async sign(resolved: ResolvedWithdrawal, signer: WithdrawSigner, signal: AbortSignal, taskId?: number): Promise<WithdrawalSummary> {
    const { view, order } = resolved;
    const prepared = await resolved.capability.prepare(view, order, signer, signal);
    const summary = summarizeWithdrawal(view.ticker, view.decimals, prepared, order.memo);
    await this.#deps.log.append(coinStream(view.platform.ticker), [
      {
        type: 'WithdrawalSigned',
        data: {
          ticker: view.ticker,
          ...(taskId === undefined ? {} : { taskId }),
          from: summary.from,
          to: summary.to,
          amount: summary.totalAmount,
          feeDetails: summary.feeDetails,
          txHash: summary.txHash,
          ...(prepared.nonce === undefined ? {} : { nonce: prepared.nonce.toString() }),
        },
      },
    ]);
    return summary;
  }

  /** `send_raw_transaction`: the coin's family broadcasts; `TransactionBroadcast` is recorded once a node took it. */
  async broadcast(ticker: string, txHex: string, signal: AbortSignal): Promise<{ txHash: string }> {
    const { view, capability } = this.#viewOf(ticker);
    const outcome = await capability.broadcast(view, txHex.replace(/^0x/, ''), signal);
    await this.#deps.log.append(coinStream(view.platform.ticker), [
      {
        type: 'TransactionBroadcast',
        data: {
          ticker,
          txHash: outcome.txHash,
          node: outcome.node,
          ...(outcome.from === undefined ? {} : { from: outcome.from }),
          ...(outcome.nonce === undefined ? {} : { nonce: outcome.nonce.toString() }),
        },
      },
    ]);
    return { txHash: outcome.txHash };
  }
}
