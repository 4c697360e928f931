/**
 * A TRON withdrawal from request to signed transaction, in the reference's order
 * (`mm2src/coins/eth/eth_withdraw.rs` `build` → `build_tron_withdraw`): the destination address,
 * then the fee policy (TRON takes none: the fee is estimated), then the memo (refused: TRON burns
 * 1 TRX for one); then the node's reads, the decision, and only then the signature.
 */
import { tronDestination } from './tronDestination.ts';
import { invalidFeePolicy, unsupported } from './tronWithdrawErrors.ts';
import type { TronWithdrawalQuery, TronWithdrawalReads } from './tronWithdrawReads.ts';
import { planTronWithdrawal, type TronWithdrawalPlan } from './tronWithdrawal.ts';
import { signTronTransaction, type SignedTronTransaction, type TronDigestSigner } from './tronSign.ts';
import { tronToEvmAddress } from '../../keys/tronAddress.ts';
import type { FeePolicyKind } from '../../../spec/withdraw.ts';

export interface TronWithdrawRequest {
  /** The withdrawn coin; `contract` (base58 `T…`) for a TRC20. */
  readonly coin: { readonly ticker: string; readonly decimals: number; readonly contract?: string };
  /** The platform coin (`TRX`), which pays the fee. */
  readonly feeCoin: string;
  /** The sender, EVM form. */
  readonly from: string;
  /** The destination as the user wrote it. */
  readonly to: string;
  readonly amount: bigint | 'max';
  /** The fee policy's kind; only `Auto` (no `fee` field) fits TRON. */
  readonly feeKind: FeePolicyKind;
  readonly memo?: string;
  /** @default 60 */
  readonly expirationSeconds?: number;
}

export interface PreparedTronWithdrawal extends SignedTronTransaction, TronWithdrawalPlan {
  /** The destination, EVM form. */
  readonly to: string;
}

/**
 * Validates, reads (through `read`, which owns failover), decides and signs. `sign` is undefined
 * for a hardware wallet, which cannot sign TRON: refused after the request's own checks, before
 * any node call (the reference's order).
 */
export async function prepareTronWithdrawal(
  request: TronWithdrawRequest,
  read: (query: TronWithdrawalQuery) => Promise<TronWithdrawalReads>,
  sign: TronDigestSigner | undefined,
): Promise<PreparedTronWithdrawal> {
  const to = tronDestination(request.to);
  checkFeePolicy(request.feeKind);
  if (request.memo !== undefined) throw unsupported('Memo is not supported for TRON withdraw (TRON charges a 1 TRX burn fee for a memo); omit memo');
  if (sign === undefined) throw unsupported('Hardware wallets are not supported for TRON withdraw');
  const contract = request.coin.contract === undefined ? undefined : tronToEvmAddress(request.coin.contract)!;
  const reads = await read({ from: request.from, to, amount: request.amount, ...(request.coin.contract === undefined ? {} : { contract: request.coin.contract }) });
  const plan = planTronWithdrawal({
    coin: { ticker: request.coin.ticker, decimals: request.coin.decimals, ...(contract === undefined ? {} : { contract }) },
    feeCoin: request.feeCoin,
    from: request.from,
    to,
    amount: request.amount,
    ...(request.expirationSeconds === undefined ? {} : { expirationSeconds: BigInt(request.expirationSeconds) }),
    reads,
  });
  return { ...plan, ...(await signTronTransaction(plan.raw, sign)), to };
}

/** No manual fee for TRON; the refusal says what fits (the reference's `validate_tron_fee_policy`). */
function checkFeePolicy(kind: FeePolicyKind): void {
  if (kind === 'Auto') return;
  if (kind === 'EthGas' || kind === 'EthGasEip1559') {
    throw invalidFeePolicy(`EVM gas fee options (${kind}) are not supported for TRON withdraw; omit the fee field: the fee is estimated from bandwidth, energy and account creation`);
  }
  throw invalidFeePolicy(`Manual fee (${kind}) is not supported for TRON withdraw; omit the fee field: the fee is estimated from bandwidth, energy and account creation`);
}
