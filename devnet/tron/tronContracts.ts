/**
 * `triggerconstantcontract` and `getcontract` served by the backing EVM chain: the call runs as
 * `eth_call`, so TRC20 reads execute the real deployed bytecode.
 */
import { id, toQuantity, ZeroAddress } from 'ethers';
import type { EvmRequest } from '../evm/inProcessEvm.ts';
import { toJsonRpcError } from '../evm/jsonRpcErrors.ts';
import { formatTronAddress, tronToEvmAddress } from './tronAddress.ts';
import { TronRequestError } from './tronErrors.ts';
import { flag, utf8Hex, type TronParams } from './tronJson.ts';

/** java-tron's message when `contract_address` holds no code. */
export const NO_CONTRACT_MESSAGE = 'No contract or not a valid smart contract';
/** java-tron's runtime error for a REVERT in a constant call. */
export const REVERT_MESSAGE = 'REVERT opcode executed';

const HEX = /^(?:0x)?((?:[0-9a-fA-F]{2})*)$/;

/** The EVM address in `params[key]`; throws a java-tron style error when missing or malformed. */
export function requireAddress(params: TronParams, key: string): string {
  const value = params[key];
  const address = typeof value === 'string' ? tronToEvmAddress(value) : undefined;
  if (address === undefined) throw new TronRequestError(`Invalid ${key}`);
  return address;
}

/** Hex digits (no `0x`) of `params[key]`, `''` when absent. */
function hexParam(params: TronParams, key: string): string {
  const value = params[key] ?? '';
  const match = typeof value === 'string' ? HEX.exec(value) : null;
  if (match?.[1] === undefined) throw new TronRequestError(`${key} must be hex`);
  return match[1].toLowerCase();
}

/** Calldata: keccak selector of `function_selector` ‖ `parameter`, or the raw `data` field. */
function callData(params: TronParams): string {
  const selector = params['function_selector'];
  if (typeof selector === 'string' && selector !== '') {
    return id(selector.replace(/\s+/g, '')).slice(2, 10) + hexParam(params, 'parameter');
  }
  return hexParam(params, 'data');
}

function callValue(params: TronParams): bigint {
  const value = params['call_value'] ?? 0;
  if ((typeof value !== 'number' || !Number.isSafeInteger(value)) && typeof value !== 'string') throw new TronRequestError('Invalid call_value');
  const amount = BigInt(value);
  if (amount < 0n) throw new TronRequestError('Invalid call_value');
  return amount;
}

/**
 * `/wallet/triggerconstantcontract`. Success: `{ result: { result: true }, constant_result: [hex],
 * transaction }`. No code at the address: `{ result: { code: 'CONTRACT_VALIDATE_ERROR', message } }`.
 * Revert: `result.message` = hex("REVERT opcode executed"), the revert data in `constant_result`
 * and `transaction.ret[0].ret = 'FAILED'` (java-tron's shape; tronweb throws on `result.message`).
 */
export async function triggerConstantContract(evm: EvmRequest, params: TronParams): Promise<Record<string, unknown>> {
  const to = requireAddress(params, 'contract_address');
  const from = params['owner_address'] === undefined ? ZeroAddress : requireAddress(params, 'owner_address');
  const data = callData(params);
  const value = callValue(params);
  const code = (await evm('eth_getCode', [to, 'latest'])) as string;
  if (code === '0x') {
    return { result: { code: 'CONTRACT_VALIDATE_ERROR', message: utf8Hex(NO_CONTRACT_MESSAGE) } };
  }
  const visible = flag(params, 'visible');
  const transaction = (ret: Record<string, string>) => ({
    ret: [ret],
    visible,
    raw_data: {
      contract: [
        {
          parameter: {
            value: {
              data,
              owner_address: formatTronAddress(from, visible),
              contract_address: formatTronAddress(to, visible),
              ...(value > 0n ? { call_value: value } : {}),
            },
            type_url: 'type.googleapis.com/protocol.TriggerSmartContract',
          },
          type: 'TriggerSmartContract',
        },
      ],
    },
  });
  const call = { from, to, data: `0x${data}`, ...(value > 0n ? { value: toQuantity(value) } : {}) };
  try {
    const output = (await evm('eth_call', [call, 'latest'])) as string;
    const energy_used = await callEnergy(evm, call);
    return { result: { result: true }, energy_used, constant_result: [output.slice(2)], transaction: transaction({}) };
  } catch (error) {
    const { message, data: revertData } = toJsonRpcError(error);
    const runtimeError = revertData !== undefined ? REVERT_MESSAGE : message;
    return {
      result: { result: true, message: utf8Hex(runtimeError) },
      constant_result: [(revertData ?? '0x').slice(2)],
      transaction: transaction({ ret: 'FAILED' }),
    };
  }
}

/**
 * The energy a call uses: the EVM gas it needs less the transaction's intrinsic gas (21 000 and
 * the calldata), which TRON charges as bandwidth instead. The same measure prices a broadcast.
 */
export async function callEnergy(evm: EvmRequest, call: { from: string; to: string; data: string; value?: string }): Promise<bigint> {
  const gas = BigInt((await evm('eth_estimateGas', [call])) as string);
  const bytes = Buffer.from(call.data.slice(2), 'hex');
  const intrinsic = 21_000n + bytes.reduce((sum, byte) => sum + (byte === 0 ? 4n : 16n), 0n);
  return gas > intrinsic ? gas - intrinsic : 0n;
}

/** The TRC20 read/transfer ABI in java-tron's `abi.entrys` shape (served for any contract). */
const TRC20_ABI = [
  view('balanceOf', [['account', 'address']], 'uint256'),
  view('decimals', [], 'uint8'),
  view('symbol', [], 'string'),
  view('name', [], 'string'),
  view('totalSupply', [], 'uint256'),
  {
    name: 'transfer',
    inputs: [{ name: 'to', type: 'address' }, { name: 'amount', type: 'uint256' }],
    outputs: [{ type: 'bool' }],
    type: 'Function',
    stateMutability: 'Nonpayable',
  },
];

function view(name: string, inputs: [string, string][], output: string): Record<string, unknown> {
  return {
    constant: true,
    name,
    ...(inputs.length > 0 ? { inputs: inputs.map(([n, type]) => ({ name: n, type })) } : {}),
    outputs: [{ type: output }],
    type: 'Function',
    stateMutability: 'View',
  };
}

/**
 * `/wallet/getcontract` (`value` = the address): `{}` when there is no code, else the bytecode and,
 * because the EVM chain keeps no ABI, a fixed TRC20 ABI (balanceOf, decimals, symbol, name,
 * totalSupply, transfer), so that tronweb's `contract().at()` works for the devnet's test tokens.
 */
export async function getContract(evm: EvmRequest, params: TronParams): Promise<Record<string, unknown>> {
  const address = requireAddress(params, 'value');
  const code = (await evm('eth_getCode', [address, 'latest'])) as string;
  if (code === '0x') return {};
  return {
    bytecode: code.slice(2),
    name: '',
    consume_user_resource_percent: 100,
    contract_address: formatTronAddress(address, flag(params, 'visible')),
    abi: { entrys: TRC20_ABI },
  };
}
