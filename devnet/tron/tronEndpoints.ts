/**
 * The java-tron HTTP endpoints the devnet TRON node serves, keyed by path. TRX balances are the
 * backing EVM chain's native balances with **1 SUN = 1 wei** (no scaling: fund an account with
 * `wei: sun`), so they are exact ledger values.
 */
import type { EvmRequest } from '../evm/inProcessEvm.ts';
import { formatTronAddress } from './tronAddress.ts';
import { tronBlock } from './tronBlocks.ts';
import { getContract, requireAddress, triggerConstantContract } from './tronContracts.ts';
import { TronRequestError } from './tronErrors.ts';
import { flag, type TronParams } from './tronJson.ts';
import { broadcastHex, broadcastTransaction, getTransactionById } from './tronBroadcast.ts';
import { DEVNET_PRICES, type TronResourceBook } from './tronResources.ts';

/** What a handler can use: the EVM chain and the set of accounts already reported as existing. */
export interface TronEndpointContext {
  evm: EvmRequest;
  /** EIP-55 addresses getaccount has reported as activated (an account never un-activates). */
  activated: Set<string>;
  /** Bandwidth and energy per account (staked limits set by tests, usage tracked by broadcasts). */
  resources: TronResourceBook;
  /** Broadcast transactions by txID. */
  transactions: Map<string, Record<string, unknown>>;
}

/** One endpoint: parameters in, JSON value out (bigints = int64 fields). */
export type TronEndpoint = (params: TronParams, context: TronEndpointContext) => Promise<unknown>;

/** The code version getnodeinfo reports (tronweb reads `configNodeInfo.codeVersion`). */
export const DEVNET_TRON_CODE_VERSION = '4.7.6';

/** A subset of mainnet's chain parameters (values as of 2024), enough for fee estimates. */
const CHAIN_PARAMETERS = [
  { key: 'getMaintenanceTimeInterval', value: 21_600_000n },
  { key: 'getCreateAccountFee', value: DEVNET_PRICES.getCreateAccountFee },
  { key: 'getTransactionFee', value: DEVNET_PRICES.getTransactionFee },
  { key: 'getCreateNewAccountFeeInSystemContract', value: DEVNET_PRICES.getCreateNewAccountFeeInSystemContract },
  { key: 'getCreateNewAccountBandwidthRate', value: DEVNET_PRICES.getCreateNewAccountBandwidthRate },
  { key: 'getEnergyFee', value: DEVNET_PRICES.getEnergyFee },
  { key: 'getMemoFee', value: 1_000_000n },
  { key: 'getAllowTvmTransferTrc10', value: 1n },
  // A flag without a value, as java-tron prints some (the reference skips such entries).
  { key: 'getAllowUpdateAccountName' },
];

/**
 * `getaccount`: `{}` for a never-activated account (EVM balance 0, nonce 0, never reported before),
 * else `{ address, balance }` with the balance in SUN (= wei). Like java-tron (protobuf JSON), a
 * zero `balance` of an activated account is omitted.
 */
async function getAccount(params: TronParams, { evm, activated }: TronEndpointContext): Promise<unknown> {
  const address = requireAddress(params, 'address');
  const [balanceHex, nonceHex] = (await Promise.all([
    evm('eth_getBalance', [address, 'latest']),
    evm('eth_getTransactionCount', [address, 'latest']),
  ])) as [string, string];
  const balance = BigInt(balanceHex);
  if (balance === 0n && BigInt(nonceHex) === 0n && !activated.has(address)) return {};
  activated.add(address);
  return { address: formatTronAddress(address, flag(params, 'visible')), ...(balance > 0n ? { balance } : {}) };
}

/** `getaccountresource`: `{}` for a never-activated account (as java-tron), else its resources. */
async function getAccountResource(params: TronParams, context: TronEndpointContext): Promise<unknown> {
  const address = requireAddress(params, 'address');
  const account = (await getAccount({ address }, context)) as Record<string, unknown>;
  return Object.keys(account).length === 0 ? {} : context.resources.answer(address);
}

async function getNowBlock(params: TronParams, { evm }: TronEndpointContext): Promise<unknown> {
  return (await tronBlock(evm, 'latest', flag(params, 'visible'))) ?? {};
}

/** Block number from a decimal string/number; throws a java-tron style error otherwise. */
function blockNumber(value: unknown, key: string): bigint {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^\d+$/.test(text)) throw new TronRequestError(`Invalid ${key}`);
  return BigInt(text);
}

/** `getblock`: `id_or_num` absent → the latest block; a number → that block; unknown → `{}`. */
async function getBlock(params: TronParams, { evm }: TronEndpointContext): Promise<unknown> {
  const idOrNum = params['id_or_num'];
  const visible = flag(params, 'visible');
  if (idOrNum === undefined || idOrNum === '') return (await tronBlock(evm, 'latest', visible)) ?? {};
  if (typeof idOrNum === 'string' && /^[0-9a-fA-F]{64}$/.test(idOrNum)) {
    return (await tronBlock(evm, BigInt(`0x${idOrNum.slice(0, 16)}`), visible)) ?? {};
  }
  return (await tronBlock(evm, blockNumber(idOrNum, 'id_or_num'), visible)) ?? {};
}

async function getBlockByNum(params: TronParams, { evm }: TronEndpointContext): Promise<unknown> {
  return (await tronBlock(evm, blockNumber(params['num'], 'num'), flag(params, 'visible'))) ?? {};
}

async function getNodeInfo(_params: TronParams, { evm }: TronEndpointContext): Promise<unknown> {
  const block = await tronBlock(evm, 'latest', false);
  const header = block?.['block_header'] as { raw_data: { number: bigint } } | undefined;
  const summary = `Num:${header?.raw_data.number ?? 0n},ID:${String(block?.['blockID'] ?? '')}`;
  return {
    beginSyncNum: header?.raw_data.number ?? 0n,
    block: summary,
    solidityBlock: summary,
    currentConnectCount: 0,
    activeConnectCount: 0,
    passiveConnectCount: 0,
    totalFlow: 0,
    peerInfoList: [],
    configNodeInfo: { codeVersion: DEVNET_TRON_CODE_VERSION, versionNum: '0', p2pVersion: '0', listenPort: 0, discoverEnable: false },
    machineInfo: { threadCount: 0, cpuCount: 0, totalMemory: 0, freeMemory: 0 },
  };
}

const readOnly: Record<string, TronEndpoint> = {
  getnowblock: getNowBlock,
  getblock: getBlock,
  getblockbynum: getBlockByNum,
  getaccount: getAccount,
  getaccountresource: getAccountResource,
  gettransactionbyid: getTransactionById,
  triggerconstantcontract: (params, { evm }) => triggerConstantContract(evm, params),
};

/** Endpoints by full path. `/walletsolidity/*` serves the same (instantly "confirmed") state. */
export const TRON_ENDPOINTS: Readonly<Record<string, TronEndpoint>> = {
  ...Object.fromEntries(Object.entries(readOnly).flatMap(([name, fn]) => [[`/wallet/${name}`, fn], [`/walletsolidity/${name}`, fn]])),
  '/wallet/getcontract': (params, { evm }) => getContract(evm, params),
  '/wallet/getnodeinfo': getNodeInfo,
  '/wallet/getchainparameters': async () => ({ chainParameter: CHAIN_PARAMETERS }),
  '/wallet/broadcasthex': broadcastHex,
  '/wallet/broadcasttransaction': broadcastTransaction,
};
