/**
 * `broadcasthex`, `broadcasttransaction` and `gettransactionbyid` of the devnet TRON node. A
 * broadcast is checked as java-tron checks it (its `Return` codes: SIGERROR, TAPOS_ERROR,
 * TRANSACTION_EXPIRATION_ERROR, DUP_TRANSACTION_ERROR, CONTRACT_VALIDATE_ERROR, BANDWITH_ERROR),
 * decoded with tronweb's protobuf definitions (not the service's encoder), the signature recovered
 * over the txID with ethers, and then executed on the backing EVM chain: a TRX transfer moves the
 * native balances, a TRC20 call runs the contract as the sender; the fee is burnt from the sender.
 */
import { createHash } from 'node:crypto';
import { computeAddress, getAddress, Signature, SigningKey, toQuantity } from 'ethers';
import type { EvmRequest } from '../evm/inProcessEvm.ts';
import { tronBlock } from './tronBlocks.ts';
import { callEnergy } from './tronContracts.ts';
import { TronRequestError } from './tronErrors.ts';
import { utf8Hex, type TronParams } from './tronJson.ts';
import { tronToEvmAddress } from './tronAddress.ts';
import type { TronResourceBook } from './tronResources.ts';
import { contractType, field, MalformedTransaction, splitTransaction } from './tronWire.ts';

/** What a broadcast needs from the node. */
export interface TronBroadcastContext {
  evm: EvmRequest;
  activated: Set<string>;
  resources: TronResourceBook;
  /** Accepted transactions by txID, in java-tron's `gettransactionbyid` shape. */
  transactions: Map<string, Record<string, unknown>>;
}

const CONTRACT_TYPES: Readonly<Record<number, string>> = { 1: 'TransferContract', 31: 'TriggerSmartContract' };
/** Gas for the EVM leg of a TRC20 call (its TRX cost is the energy charge, not this). */
const EVM_GAS_PRICE = 10n ** 9n;

/** A refusal in java-tron's broadcast shape: `message` is hex of the text. */
class BroadcastRefused extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

/** `/wallet/broadcasthex {transaction: hex}`. */
export async function broadcastHex(params: TronParams, context: TronBroadcastContext): Promise<unknown> {
  const hex = params['transaction'];
  if (typeof hex !== 'string' || !/^(?:[0-9a-fA-F]{2})+$/.test(hex)) throw new TronRequestError('transaction must be hex');
  return broadcast(Buffer.from(hex, 'hex'), context, true);
}

/** `/wallet/broadcasttransaction` with tronweb's JSON (`raw_data_hex` and `signature` are used). */
export async function broadcastTransaction(params: TronParams, context: TronBroadcastContext): Promise<unknown> {
  const rawHex = params['raw_data_hex'];
  const signatures = params['signature'];
  if (typeof rawHex !== 'string' || !Array.isArray(signatures)) throw new TronRequestError('raw_data_hex and signature are required');
  const parts = [field(1, Buffer.from(rawHex, 'hex')), ...signatures.map((s) => field(2, Buffer.from(String(s), 'hex')))];
  return broadcast(Buffer.concat(parts), context, false);
}

/** `/wallet/gettransactionbyid {value: txID}`: the transaction, or `{}` when unknown. */
export async function getTransactionById(params: TronParams, context: TronBroadcastContext): Promise<unknown> {
  const id = typeof params['value'] === 'string' ? params['value'].toLowerCase() : '';
  return context.transactions.get(id) ?? {};
}

async function broadcast(bytes: Buffer, context: TronBroadcastContext, withTransaction: boolean): Promise<unknown> {
  let txid = '';
  try {
    const { raw, signatures } = splitTransaction(bytes);
    txid = createHash('sha256').update(raw).digest('hex');
    if (context.transactions.has(txid)) throw new BroadcastRefused('DUP_TRANSACTION_ERROR', 'Dup transaction.');
    const type = CONTRACT_TYPES[contractType(raw)];
    if (type === undefined) throw new BroadcastRefused('CONTRACT_VALIDATE_ERROR', 'Contract type not served by the devnet');
    // tronweb (~0.9 s to load) only when a transaction arrives.
    const { utils: tronUtils } = await import('tronweb');
    const rawData = tronUtils.deserializeTx.deserializeTransaction(type, raw.toString('hex')) as RawData;
    const value = rawData.contract[0]!.parameter.value;
    const owner = tronToEvmAddress(value.owner_address)!;
    if (signatures.length !== 1 || recoverSigner(txid, signatures[0]!) !== owner) {
      throw new BroadcastRefused('SIGERROR', 'Validate signature error: signature does not match the owner address');
    }
    await checkTaposAndExpiry(context.evm, rawData);
    const signedBytes = BigInt(bytes.length);
    const contractRet = await execute(context, type, value, rawData, signedBytes);
    const stored = { ret: [{ contractRet }], signature: signatures.map((s) => s.toString('hex')), txID: txid, raw_data: rawData, raw_data_hex: raw.toString('hex') };
    context.transactions.set(txid, stored);
    return { result: true, txid, ...(withTransaction ? { transaction: JSON.stringify(stored) } : {}) };
  } catch (error) {
    if (error instanceof MalformedTransaction) return { result: false, code: 'OTHER_ERROR', txid, message: utf8Hex(error.message) };
    if (!(error instanceof BroadcastRefused)) throw error;
    return { result: false, code: error.code, txid, message: utf8Hex(error.message) };
  }
}

interface RawData {
  ref_block_bytes: string;
  ref_block_hash: string;
  expiration: number;
  fee_limit?: number;
  contract: { parameter: { value: { owner_address: string; to_address?: string; amount?: number; contract_address?: string; data?: string } } }[];
}

/**
 * The sender's funds move: TRX from owner to `to_address`; a TRC20 call runs on the chain. A call
 * that reverts is still included, as java-tron includes it (`REVERT`), paying its bandwidth (its
 * energy is not measured here: it is charged none).
 */
async function execute(context: TronBroadcastContext, type: string, value: RawData['contract'][0]['parameter']['value'], rawData: RawData, signedBytes: bigint): Promise<'SUCCESS' | 'REVERT'> {
  const { evm } = context;
  const owner = tronToEvmAddress(value.owner_address)!;
  const balance = async (address: string) => BigInt((await evm('eth_getBalance', [address, 'latest'])) as string);
  const setBalance = (address: string, sun: bigint) => evm('hardhat_setBalance', [address, toQuantity(sun)]);
  const before = await balance(owner);
  if (type === 'TransferContract') {
    const to = tronToEvmAddress(value.to_address ?? '')!;
    const amount = BigInt(value.amount ?? 0);
    if (to === owner) throw new BroadcastRefused('CONTRACT_VALIDATE_ERROR', 'Cannot transfer TRX to yourself.');
    const creates = !(await isActivated(context, to));
    const fee = chargeOrRestore(context.resources, owner, () => {
      const fee = context.resources.charge(owner, signedBytes, 1n, creates, 0n);
      if (before < amount + fee) throw new BroadcastRefused('CONTRACT_VALIDATE_ERROR', 'Validate TransferContract error, balance is not sufficient.');
      return fee;
    });
    const toBefore = await balance(to);
    await setBalance(owner, before - amount - fee);
    await setBalance(to, toBefore + amount);
    context.activated.add(to);
    await evm('evm_mine', []);
    return 'SUCCESS';
  }
  const contract = tronToEvmAddress(value.contract_address ?? '')!;
  const call = { from: owner, to: contract, data: `0x${value.data ?? ''}` };
  const energy = await callEnergy(evm, call).catch(() => undefined);
  const { fee, energyFee } = chargeOrRestore(context.resources, owner, () => {
    const bandwidthFee = context.resources.charge(owner, signedBytes, 1n, false, 0n);
    const energyFee = context.resources.charge(owner, 0n, 0n, false, energy ?? 0n);
    if (bandwidthFee + energyFee > before) throw new BroadcastRefused('BANDWITH_ERROR', 'Account resource insufficient error.');
    return { fee: bandwidthFee + energyFee, energyFee };
  });
  if (BigInt(rawData.fee_limit ?? 0) < energyFee) throw new BroadcastRefused('CONTRACT_EXE_ERROR', 'Not enough energy: fee_limit is below the energy fee');
  // The EVM leg needs gas money the TRON account does not have: lend it, then settle to before − fee.
  if (energy === undefined) {
    await setBalance(owner, before - fee);
    await evm('evm_mine', []);
    return 'REVERT';
  }
  await evm('hardhat_impersonateAccount', [owner]);
  await setBalance(owner, before + 10n ** 18n);
  try {
    await evm('eth_sendTransaction', [{ ...call, gas: toQuantity(1_000_000n), gasPrice: toQuantity(EVM_GAS_PRICE) }]);
  } finally {
    await setBalance(owner, before - fee);
    await evm('hardhat_stopImpersonatingAccount', [owner]);
  }
  return 'SUCCESS';
}

/** Runs `charge`; when it refuses, the account's resources are as before. */
function chargeOrRestore<T>(book: TronResourceBook, owner: string, charge: () => T): T {
  const snapshot = { ...book.of(owner) };
  try {
    return charge();
  } catch (error) {
    book.set(owner, snapshot);
    throw error;
  }
}

async function isActivated(context: TronBroadcastContext, address: string): Promise<boolean> {
  if (context.activated.has(getAddress(address))) return true;
  const [balance, nonce] = (await Promise.all([context.evm('eth_getBalance', [address, 'latest']), context.evm('eth_getTransactionCount', [address, 'latest'])])) as [string, string];
  return BigInt(balance) > 0n || BigInt(nonce) > 0n;
}

/** TAPOS: the referenced block exists (number's low bytes and id bytes 8..16 match); not expired. */
async function checkTaposAndExpiry(evm: EvmRequest, rawData: RawData): Promise<void> {
  const latest = (await tronBlock(evm, 'latest', false))!;
  const head = (latest['block_header'] as { raw_data: { number: bigint; timestamp: bigint } }).raw_data;
  if (BigInt(rawData.expiration) <= head.timestamp) throw new BroadcastRefused('TRANSACTION_EXPIRATION_ERROR', 'Transaction expired');
  const low = BigInt(`0x${rawData.ref_block_bytes}`);
  for (let n = head.number; n >= 0n && head.number - n < 65_536n; n--) {
    if ((n & 0xffffn) !== low) continue;
    const block = (await tronBlock(evm, n, false))!;
    if (String(block['blockID']).slice(16, 32) === rawData.ref_block_hash.toLowerCase()) return;
    break;
  }
  throw new BroadcastRefused('TAPOS_ERROR', 'Tapos check error');
}

function recoverSigner(txid: string, signature: Buffer): string | undefined {
  if (signature.length !== 65 || signature[64]! > 1) return undefined;
  try {
    const sig = Signature.from({ r: `0x${signature.subarray(0, 32).toString('hex')}`, s: `0x${signature.subarray(32, 64).toString('hex')}`, v: 27 + signature[64]! });
    return computeAddress(SigningKey.recoverPublicKey(`0x${txid}`, sig));
  } catch {
    return undefined;
  }
}
