/**
 * A QRC20 token's withdrawal (KDF `qrc20.rs` `qrc20_withdraw`, `qrc20/script_pubkey.rs`): one
 * output of 0 QTUM whose script calls the token's `transfer(to, amount)` (`OP_4 gas_limit gas_price
 * data contract OP_CALL`), paid for from the sender's QTUM outputs: the gas (gas_limit × gas_price)
 * beside the miner fee, change back to the sender. Destinations are P2PKH only.
 */
import { Interface } from 'ethers';
import { payments, script as btcScript } from 'bitcoinjs-lib';
import type { CoinEntry } from '../../../spec/coins.ts';
import { decodeBase58Check } from '../../keys/base58check.ts';
import { utxoWallet, type UtxoAddressRule } from '../utxoAddress.ts';
import { coinTxParams, type CoinTxParams } from './coinTxParams.ts';
import { signTx, type DigestSigner } from './signTx.ts';
import { planTx, type FeeRate, type TxPlan } from './txPlan.ts';
import { UtxoWithdrawRefused } from './utxoWithdraw.ts';
import type { WithdrawChain } from './withdrawChain.ts';

/** The reference's defaults (`QRC20_GAS_LIMIT_DEFAULT`, `QRC20_GAS_PRICE_DEFAULT`, satoshi per gas). */
export const QRC20_GAS_LIMIT_DEFAULT = 100_000n;
export const QRC20_GAS_PRICE_DEFAULT = 40n;
const OP_4 = 0x54;
const OP_CALL = 0xc2;
const ERC20 = new Interface(['function transfer(address to, uint256 amount)']);

export interface Qrc20WithdrawCoin {
  readonly entry: CoinEntry;
  readonly platform: string;
  /** 40 hex digits. */
  readonly contract: string;
  readonly addressRule: UtxoAddressRule;
  /** The token's decimals; the platform's outputs are in 10^-8 QTUM. */
  readonly decimals: number;
  readonly matureConfirmations: number;
  readonly chain: WithdrawChain;
  /** The sender's token balance, read now (the contract's `balanceOf`). */
  readTokenBalance(signal: AbortSignal): Promise<bigint>;
}

export interface Qrc20WithdrawOrder {
  readonly to: string;
  readonly amount: bigint | 'max';
  readonly gas?: { readonly gasLimit: bigint; readonly gasPrice: bigint };
}

export interface Qrc20Withdrawal {
  readonly txHex: string;
  readonly txHash: string;
  readonly from: string;
  readonly to: string;
  /** Token units sent (`total_amount`, `spent_by_me`). */
  readonly amount: bigint;
  /** Token units back to the sender (the amount when sent to itself). */
  readonly received: bigint;
  readonly minerFee: bigint;
  readonly gasLimit: bigint;
  readonly gasPrice: bigint;
  readonly gasFee: bigint;
  readonly plan: TxPlan;
  readonly roundTrips: number;
}

/** Minimal CScriptNum bytes (little-endian, sign bit), as Qtum reads gas numbers. */
function scriptNumber(value: bigint): Buffer {
  return Buffer.from(btcScript.number.encode(Number(value)));
}

/** A data push exactly as the reference writes it (never folded into OP_1..OP_16). */
function push(data: Uint8Array): Buffer {
  const length = data.length;
  const prefix = length < 0x4c ? [length] : length <= 0xff ? [0x4c, length] : [0x4d, length & 0xff, length >> 8];
  return Buffer.concat([Buffer.from(prefix), Buffer.from(data)]);
}

/** The output script of a contract call (`generate_contract_call_script_pubkey`). */
export function contractCallScript(data: Uint8Array, gasLimit: bigint, gasPrice: bigint, contract: Uint8Array): Uint8Array {
  return Buffer.concat([Buffer.from([OP_4]), push(scriptNumber(gasLimit)), push(scriptNumber(gasPrice)), push(data), push(contract), Buffer.from([OP_CALL])]);
}

/** The hash160 of a P2PKH destination of the token's network, or a refusal. */
function destinationHash(to: string, params: CoinTxParams): Uint8Array {
  const payload = decodeBase58Check(to, params.checksum);
  const matches = (prefix: readonly number[]) => payload !== undefined && payload.length === prefix.length + 20 && prefix.every((b, i) => payload[i] === b);
  if (matches(params.p2pkhPrefix)) return payload!.subarray(payload!.length - 20);
  if (matches(params.p2shPrefix)) throw new UtxoWithdrawRefused({ failure: 'InvalidAddress', message: 'QRC20 can be sent to P2PKH addresses only' });
  throw new UtxoWithdrawRefused({ failure: 'InvalidAddress', message: `${JSON.stringify(to.slice(0, 100))} is not a ${params.ticker} P2PKH address` });
}

/** Checks, reads the token balance and the QTUM outputs, plans and signs. */
export async function prepareQrc20Withdrawal(coin: Qrc20WithdrawCoin, order: Qrc20WithdrawOrder, signer: DigestSigner, nowSeconds: number, signal: AbortSignal): Promise<Qrc20Withdrawal> {
  const found = coinTxParams(coin.entry, coin.addressRule, 8);
  if ('problem' in found) throw new UtxoWithdrawRefused({ failure: 'Unsupported', message: found.problem });
  const params = found.params;
  const toHash = destinationHash(order.to, params);
  const gasLimit = order.gas?.gasLimit ?? QRC20_GAS_LIMIT_DEFAULT;
  const gasPrice = order.gas?.gasPrice ?? QRC20_GAS_PRICE_DEFAULT;
  if (gasLimit <= 0n || gasPrice <= 0n) throw new UtxoWithdrawRefused({ failure: 'InvalidFee', message: 'Qrc20Gas: gas_limit and gas_price cannot be zero' });
  const wallet = utxoWallet(signer.publicKey, coin.addressRule);
  // The token balance and the platform's outputs do not depend on each other: read them together.
  const [balance, read] = await Promise.all([
    coin.readTokenBalance(signal),
    coin.chain.read(
      {
        address: wallet.address,
        scripts: wallet.scripts,
        ...(params.fee.kind === 'estimate' ? { estimateBlocks: params.fee.blocks } : {}),
        relayFee: params.forceMinRelayFee,
        matureConfirmations: coin.matureConfirmations,
        decimals: 8,
      },
      signal,
    ),
  ]);
  let amount: bigint;
  if (order.amount === 'max') {
    if (balance === 0n) throw new UtxoWithdrawRefused({ failure: 'ZeroBalanceToWithdrawMax' });
    amount = balance;
  } else {
    amount = order.amount;
    if (amount > balance) throw new UtxoWithdrawRefused({ failure: 'NotSufficientBalance', coin: params.ticker, decimals: coin.decimals, available: balance, required: amount });
  }
  const data = Buffer.from(ERC20.encodeFunctionData('transfer', [`0x${Buffer.from(toHash).toString('hex')}`, amount]).slice(2), 'hex');
  const gasFee = gasLimit * gasPrice;
  const feeRate: FeeRate = params.fee.kind === 'estimate' ? { kind: 'perKb', rate: read.estimatePerKb ?? 1000n } : params.fee;
  const planned = planTx({
    unspents: read.unspents,
    outputs: [{ script: contractCallScript(data, gasLimit, gasPrice, Buffer.from(coin.contract, 'hex')), value: 0n }],
    deductFeeFromFirst: false,
    changeScript: payments.p2pkh({ pubkey: Buffer.from(signer.publicKey) }).output!,
    feeRate,
    ...(read.relayPerKb === undefined ? {} : { minRelayRate: read.relayPerKb }),
    dust: 0n, // the reference's QRC20_DUST: change of any size returns
    segwitSender: false,
    gasFee,
  });
  if ('failure' in planned) {
    // Short of QTUM: the errors name the platform (`into_withdraw_error(platform)`).
    const available = planned.failure === 'NotEnoughUnspents' ? planned.available : planned.failure === 'FeeExceedsOutput' ? planned.outputValue : 0n;
    const required = 'required' in planned ? planned.required : planned.dust;
    throw new UtxoWithdrawRefused({ failure: 'NotSufficientBalance', coin: coin.platform, decimals: 8, available, required });
  }
  signal.throwIfAborted();
  const signed = await signTx(planned, { txVersion: params.txVersion, forkId: 0, forkIdSignatures: false, lockTime: nowSeconds }, signer);
  return {
    txHex: signed.hex,
    txHash: signed.txid,
    from: wallet.address,
    to: order.to,
    amount,
    received: Buffer.from(toHash).equals(Buffer.from(payments.p2pkh({ pubkey: Buffer.from(signer.publicKey) }).hash!)) ? amount : 0n,
    minerFee: planned.fee,
    gasLimit,
    gasPrice,
    gasFee,
    plan: planned,
    roundTrips: read.roundTrips,
  };
}
