/**
 * The UTXO family's withdraw capability (issue 25): UTXO and QTUM coins (utxoWithdraw.ts) and
 * QRC20 tokens (qrc20Withdraw.ts), signed by the key provider (digests) or on a device
 * (deviceSignTx.ts), broadcast through the coin's own node (Electrum pool or native daemon).
 */
import type { Clock } from '../../../kernel/clock.ts';
import { ActivationError, ErrorType, errorSentence, invalidRequest, isActivationError } from '../../../spec/errors.ts';
import { parseCoinProtocol } from '../../../spec/coins.ts';
import type { FeePolicy, PreparedWithdrawal, WithdrawOrder } from '../../../spec/withdraw.ts';
import type { ActiveCoinView, WithdrawCapability, WithdrawSigner } from '../../../actors/ports/withdraw.ts';
import type { UtxoBackend } from '../utxoBackend.ts';
import { utxoWallet } from '../utxoAddress.ts';
import type { DigestSigner } from './signTx.ts';
import { prepareQrc20Withdrawal } from './qrc20Withdraw.ts';
import { prepareUtxoWithdrawal, UtxoWithdrawRefused, type UtxoFeeRequest, type UtxoWithdrawCoin } from './utxoWithdraw.ts';
import { withdrawError } from './withdrawErrors.ts';
import { deviceSignedWithdrawal } from './deviceSignTx.ts';

const invalidFeePolicy = (message: string) => new ActivationError(ErrorType.InvalidFeePolicy, message, message);
const internal = (message: string) => new ActivationError(ErrorType.InternalError, message, message);

function backendOf(view: ActiveCoinView): NonNullable<UtxoBackend['withdraw']> & { backend: UtxoBackend } {
  const backend = view.platform.connection as UtxoBackend;
  if (backend.withdraw === undefined) throw internal(`${view.ticker}: the coin's node gives no withdrawal reads`);
  return { ...backend.withdraw, backend };
}

/** The UTXO fee of the order: the reference's `Expected 'UtxoFixed' or 'UtxoPerKbyte' fee types` for any other. */
function utxoFee(fee: FeePolicy): UtxoFeeRequest | undefined {
  switch (fee.kind) {
    case 'Auto':
      return undefined;
    case 'UtxoFixed':
    case 'UtxoPerKbyte':
      return { type: fee.kind, perKb: fee.amount };
    default:
      throw invalidFeePolicy(`Expected 'UtxoFixed' or 'UtxoPerKbyte' fee types, found ${fee.kind}`);
  }
}

function qrc20Gas(fee: FeePolicy): { gasLimit: bigint; gasPrice: bigint } | undefined {
  if (fee.kind === 'Auto') return undefined;
  if (fee.kind === 'Qrc20Gas') return { gasLimit: fee.gasLimit, gasPrice: fee.gasPrice };
  throw invalidFeePolicy(`Expected 'Qrc20Gas' fee type, found ${fee.kind}`);
}

/**
 * The sender's compressed key: one the activation derived for that address (an HD account,
 * mnemonic or device), else the coin's own. Checked against the sender's address.
 */
function senderKey(view: ActiveCoinView, backend: UtxoBackend, order: WithdrawOrder, rule: Parameters<typeof utxoWallet>[1]): Uint8Array {
  const listed = backend.senderKey?.(order.sender.address);
  const key = listed ?? (order.sender.address === view.platform.address ? Uint8Array.from(Buffer.from(view.platform.pubkey, 'hex')) : undefined);
  if (key === undefined || utxoWallet(key, rule).address !== order.sender.address) throw internal(`${view.ticker}: no key is known for the sender ${order.sender.address}`);
  return key;
}

/** The key provider's signature as 64 bytes r‖s. */
function digestSigner(publicKey: Uint8Array, signer: Extract<WithdrawSigner, { kind: 'key' }>): DigestSigner {
  return {
    publicKey,
    async signDigest(digest) {
      const { r, s } = await signer.signDigest(digest);
      return Uint8Array.from(Buffer.from(`${r}${s}`, 'hex'));
    },
  };
}

export function utxoWithdrawCapability(options: { readonly clock: Clock }): WithdrawCapability {
  const nowSeconds = () => Math.floor(options.clock.now() / 1000);

  async function prepare(view: ActiveCoinView, order: WithdrawOrder, signer: WithdrawSigner, signal: AbortSignal): Promise<PreparedWithdrawal> {
    // Fields a UTXO or QRC20 transaction built here cannot carry: refused by name, never dropped.
    if (order.memo !== undefined) throw errorSentence(ErrorType.InvalidMemo, `memo: a ${view.ticker} transaction built here carries no memo`);
    if (order.expirationSeconds !== undefined) throw invalidRequest('params.expiration_seconds: applies to TRON transactions only; a UTXO transaction does not expire');
    const { chain, params, backend } = backendOf(view);
    const key = senderKey(view, backend, order, params.addressRule);
    const token = params.qrc20;
    if (token !== undefined) {
      const gas = qrc20Gas(order.fee);
      if (signer.kind !== 'key') throw new ActivationError(ErrorType.UnsupportedError, `${view.ticker}: QRC20 withdrawals are not signed on a hardware wallet`, `${view.ticker}: QRC20 withdrawals are not signed on a hardware wallet`);
      const protocol = parseCoinProtocol(params.entry);
      const platform = protocol.ok && protocol.protocol.type === 'QRC20' ? protocol.protocol.platform : view.ticker;
      const done = await prepareQrc20Withdrawal(
        {
          entry: params.entry,
          platform,
          contract: token.contract,
          addressRule: params.addressRule,
          decimals: view.decimals,
          matureConfirmations: params.matureConfirmations,
          chain,
          readTokenBalance: async (s) => (await backend.read(s)).balance.spendable,
        },
        { to: order.to, amount: order.amount, ...(gas === undefined ? {} : { gas }) },
        digestSigner(key, signer),
        nowSeconds(),
        signal,
      );
      const feeDetails = { type: 'Qrc20', coin: platform, decimals: 8, minerFee: done.minerFee, gasLimit: done.gasLimit, gasPrice: done.gasPrice, totalGasFee: done.gasFee } as const;
      return prepared(done, done.amount, feeDetails);
    }
    const fee = utxoFee(order.fee);
    const coin: UtxoWithdrawCoin = { entry: params.entry, addressRule: params.addressRule, decimals: view.decimals, matureConfirmations: params.matureConfirmations, chain };
    const utxoOrder = { to: order.to, amount: order.amount, ...(fee === undefined ? {} : { fee }) };
    const done =
      signer.kind === 'key'
        ? await prepareUtxoWithdrawal(coin, utxoOrder, digestSigner(key, signer), nowSeconds(), signal)
        : await deviceSignedWithdrawal(coin, utxoOrder, key, signer.device, nowSeconds(), signal);
    return prepared(done, done.spent, { type: 'Utxo', coin: view.ticker, decimals: view.decimals, amount: done.fee });
  }

  /** The withdrawal as the seam has it: `spent` is what leaves the sender (the reference's `total_amount` and `spent_by_me`). */
  function prepared(
    done: { readonly txHex: string; readonly txHash: string; readonly from: string; readonly to: string; readonly received: bigint },
    spent: bigint,
    feeDetails: PreparedWithdrawal['feeDetails'],
  ): PreparedWithdrawal {
    return {
      txHex: done.txHex,
      txHash: done.txHash,
      from: [done.from],
      to: [done.to],
      totalAmount: spent,
      spentByMe: spent,
      receivedByMe: done.received,
      myBalanceChange: done.received - spent,
      feeDetails,
      timestamp: nowSeconds(),
    };
  }

  return {
    protocols: ['UTXO', 'QTUM', 'QRC20'],
    // The reference's `task::withdraw` serves UTXO and QTUM coins, not QRC20 (`init_withdraw.rs`).
    taskProtocols: ['UTXO', 'QTUM'],
    async prepare(view, order, signer, signal) {
      try {
        return await prepare(view, order, signer, signal);
      } catch (error) {
        if (error instanceof UtxoWithdrawRefused) throw withdrawError(error.refusal, view.ticker, view.decimals);
        if (isActivationError(error) || signal.aborted) throw error;
        throw new ActivationError(ErrorType.InternalError, `${view.ticker}: ${(error as Error).message}`, undefined, { cause: error });
      }
    },
    async broadcast(view, txHex, signal) {
      return backendOf(view).chain.broadcast(txHex, signal);
    },
  };
}
