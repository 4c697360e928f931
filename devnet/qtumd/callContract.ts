/**
 * qtumd's `callcontract "address" "data" ( "sender" )` answered from an EVM, shared by the Qtum
 * daemon double and the Electrum double (whose `blockchain.contract.call` passes qtumd's answer
 * through). Shapes from qtum's contract_util.cpp `CallToContract`: `{ address, executionResult: {
 * gasUsed, excepted, newAddress, output, codeDeposit, gasRefunded, depositSize, gasForDeposit,
 * exceptedMessage }, transactionReceipt: { stateRoot, utxoRoot, gasUsed, bloom, createdContracts,
 * destructedContracts, log } }`, hex without 0x. `excepted` is cpp-ethereum's TransactionException
 * name: "None", or "RevertInstruction" on a revert with the `Error(string)` reason in
 * `exceptedMessage`. Refusals are `DaemonRpcError`s with qtumd's codes and messages, checked in
 * its order (data, then address).
 */
import { AbiCoder, dataSlice } from 'ethers';
import { toJsonRpcError } from '../evm/jsonRpcErrors.ts';
import type { EvmRequest } from '../evm/inProcessEvm.ts';
import { DaemonRpcError } from '../../infra/utxo/daemonRpc.ts';

/** bitcoind/qtumd RPC error codes (rpc/protocol.h) used by the doubles. */
export const QTUM_RPC = {
  miscError: -1,
  typeError: -3,
  invalidAddressOrKey: -5,
  invalidParameter: -8,
  invalidRequest: -32600,
  methodNotFound: -32601,
  parseError: -32700,
} as const;

const HEX40 = /^[0-9a-fA-F]{40}$/;
const EVEN_HEX = /^(?:[0-9a-fA-F]{2})*$/;
const ERROR_STRING_SELECTOR = '0x08c379a0';

const refuse = (code: number, message: string) => new DaemonRpcError(message, code, 'callcontract');
const strip0x = (hex: string) => hex.replace(/^0x/, '');

/** UniValue's type names, as qtumd's JSON reader words a parameter of the wrong type. */
function jsonTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}

/** A string parameter of `method`; anything else is refused as qtumd's UniValue `get_str` does (-1). */
export function stringParam(value: unknown, method: string): string {
  if (typeof value === 'string') return value;
  throw new DaemonRpcError(`JSON value of type ${jsonTypeName(value)} is not of expected type string`, QTUM_RPC.miscError, method);
}

/** The answer of a successful `callcontract` (a reverted call is a success with `excepted` set). */
export interface CallContractResult {
  readonly address: string;
  readonly executionResult: Record<string, unknown> & { readonly output: string; readonly excepted: string };
  readonly transactionReceipt: Record<string, unknown>;
}

/** `eth_call`, folded into Qtum's execution result: output hex, exception name and revert reason. */
async function execute(evm: EvmRequest, call: { to: string; data: string; from?: string }): Promise<{ output: string; excepted: string; exceptedMessage: string; gasUsed: number }> {
  try {
    const output = (await evm('eth_call', [call, 'latest'])) as string;
    // Qtum reports the gas of the call as a transaction (21000 intrinsic included), as estimateGas does.
    const gasUsed = Number(await evm('eth_estimateGas', [call]));
    return { output: strip0x(output), excepted: 'None', exceptedMessage: '', gasUsed };
  } catch (thrown) {
    const error = toJsonRpcError(thrown);
    if (error.data === undefined && !/revert/i.test(error.message)) throw thrown;
    const output = error.data ?? '0x';
    let reason = '';
    if (output.startsWith(ERROR_STRING_SELECTOR)) reason = String(AbiCoder.defaultAbiCoder().decode(['string'], dataSlice(output, 4))[0]);
    return { output: strip0x(output), excepted: 'RevertInstruction', exceptedMessage: reason, gasUsed: 0 };
  }
}

/**
 * Runs `callcontract address data [sender]` on `evm`. Throws a `DaemonRpcError` for qtumd's
 * refusals; anything else the EVM throws is rethrown as is (the caller's internal error).
 */
export async function callContract(evm: EvmRequest, address: string, data: string, sender = ''): Promise<CallContractResult> {
  if (!EVEN_HEX.test(data)) throw refuse(QTUM_RPC.typeError, 'Invalid data (data not hex)');
  if (!HEX40.test(address)) throw refuse(QTUM_RPC.invalidAddressOrKey, 'Incorrect address');
  if (sender !== '' && !HEX40.test(sender)) throw refuse(QTUM_RPC.invalidAddressOrKey, 'Incorrect sender address');
  const to = `0x${address}`;
  // qtumd answers "Address does not exist" for an unused account; here: one without code.
  if ((await evm('eth_getCode', [to, 'latest'])) === '0x') throw refuse(QTUM_RPC.invalidAddressOrKey, 'Address does not exist');
  const result = await execute(evm, { to, data: `0x${data}`, ...(sender ? { from: `0x${sender}` } : {}) });
  const latest = (await evm('eth_getBlockByNumber', ['latest', false])) as { stateRoot: string };
  return {
    address,
    executionResult: {
      gasUsed: result.gasUsed,
      excepted: result.excepted,
      newAddress: address,
      output: result.output,
      codeDeposit: 0,
      gasRefunded: 0,
      depositSize: 0,
      gasForDeposit: 0,
      exceptedMessage: result.exceptedMessage,
    },
    transactionReceipt: {
      stateRoot: strip0x(latest.stateRoot),
      utxoRoot: '0'.repeat(64), // no Qtum UTXO trie behind an EVM devnet
      gasUsed: result.gasUsed,
      bloom: '0'.repeat(512),
      createdContracts: [],
      destructedContracts: [],
      log: [],
    },
  };
}
