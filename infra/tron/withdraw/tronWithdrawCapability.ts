/**
 * The TRON family's withdraw capability (the seam of issue 25): `prepare` builds and signs a TRX or
 * TRC20 transfer (never broadcasting), `broadcast` sends a signed one with `/wallet/broadcasthex`
 * (the reference's `send_raw_transaction` path, `mm2src/coins/eth.rs` `tron_broadcast_hex_fut`).
 */
import type { ActiveCoinView, BroadcastOutcome, WithdrawCapability, WithdrawSigner } from '../../../actors/ports/withdraw.ts';
import type { ActivatedCoin } from '../../../machines/activation.types.ts';
import type { Clock } from '../../../kernel/clock.ts';
import type { PreparedWithdrawal, WithdrawOrder } from '../../../spec/withdraw.ts';
import { evmToTronBase58, tronToEvmAddress } from '../../keys/tronAddress.ts';
import type { TronHttp } from '../tronHttp.ts';
import { prepareTronWithdrawal, type PreparedTronWithdrawal } from './tronWithdraw.ts';
import { readForWithdrawal } from './tronWithdrawReads.ts';
import { internalError } from './tronWithdrawErrors.ts';
import type { TronDigestSigner } from './tronSign.ts';
import { broadcastAnswer, normalizeTronTxHex } from './tronBroadcastHex.ts';

export interface TronWithdrawOptions {
  readonly clock: Clock;
  /**
   * Runs `work` against the coin's nodes with the family's failover; resolves with its value and
   * the origin label of the node that answered.
   */
  onNodes<T>(coin: ActivatedCoin, signal: AbortSignal, work: (http: TronHttp, signal: AbortSignal) => Promise<T>): Promise<{ value: T; node: string }>;
}

export function createTronWithdraw(options: TronWithdrawOptions): WithdrawCapability {
  return {
    protocols: ['TRX', 'TRC20'],

    async prepare(coin: ActiveCoinView, order: WithdrawOrder, signer: WithdrawSigner, signal: AbortSignal): Promise<PreparedWithdrawal> {
      const from = tronToEvmAddress(order.sender.address);
      if (from === undefined) throw internalError(`${coin.ticker}: the sender ${order.sender.address} is not a TRON address`);
      const feeCoin = coin.platform.ticker;
      const prepared = await prepareTronWithdrawal(
        {
          coin: { ticker: coin.ticker, decimals: coin.decimals, ...(coin.token === undefined ? {} : { contract: coin.token.contractAddress }) },
          feeCoin,
          from,
          to: order.to,
          amount: order.amount,
          feeKind: order.fee.kind,
          ...(order.memo === undefined ? {} : { memo: order.memo }),
          ...(order.expirationSeconds === undefined ? {} : { expirationSeconds: order.expirationSeconds }),
        },
        async (query) => (await options.onNodes(coin.platform, signal, (http, nodeSignal) => readForWithdrawal(http, query, nodeSignal))).value,
        digestSigner(signer),
      );
      return details(prepared, from, coin.token !== undefined, Math.floor(options.clock.now() / 1000));
    },

    async broadcast(coin: ActiveCoinView, txHex: string, signal: AbortSignal): Promise<BroadcastOutcome> {
      const transaction = normalizeTronTxHex(txHex);
      const { value, node } = await options.onNodes(coin.platform, signal, async (http, nodeSignal) =>
        broadcastAnswer(await http.post('/wallet/broadcasthex', { transaction }, nodeSignal)),
      );
      if ('refused' in value) throw value.refused;
      return { txHash: value.txid, node };
    },
  };
}

/** The key signs the txID; a hardware wallet cannot sign TRON (as in the reference): none. */
function digestSigner(signer: WithdrawSigner): TronDigestSigner | undefined {
  if (signer.kind !== 'key') return undefined;
  return async (digest) => {
    const { r, s, recovery } = await signer.signDigest(digest);
    return Buffer.concat([Buffer.from(r.padStart(64, '0'), 'hex'), Buffer.from(s.padStart(64, '0'), 'hex'), Buffer.from([recovery])]);
  };
}

/**
 * The reference's amounts (`eth_withdraw.rs` `build_transaction_details`): TRX spends amount + fee;
 * a TRC20 spends the token amount (the fee is TRX); what comes back when sending to oneself.
 */
function details(prepared: PreparedTronWithdrawal, from: string, token: boolean, timestamp: number): PreparedWithdrawal {
  const { fee, amount } = prepared;
  const spentByMe = token ? amount : amount + fee.totalFeeSun;
  const receivedByMe = prepared.to === from ? amount : 0n;
  return {
    txHex: prepared.txHex,
    txHash: prepared.txHash,
    from: [evmToTronBase58(from)],
    to: [evmToTronBase58(prepared.to)],
    totalAmount: amount,
    spentByMe,
    receivedByMe,
    myBalanceChange: receivedByMe - spentByMe,
    feeDetails: {
      type: 'Tron',
      coin: fee.coin,
      bandwidthUsed: Number(fee.bandwidthUsed),
      energyUsed: Number(fee.energyUsed),
      bandwidthFee: fee.bandwidthFeeSun,
      energyFee: fee.energyFeeSun,
      ...(fee.accountCreationFeeSun === undefined ? {} : { accountCreationFee: fee.accountCreationFeeSun }),
      totalFee: fee.totalFeeSun,
    },
    timestamp,
  };
}

