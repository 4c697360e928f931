/**
 * Qtum's ElectrumX extension (qtumproject/qtum-electrumx-server) answered from an EVM, so QRC20
 * clients can be tested against a real ERC20. Shapes matched:
 * - `blockchain.contract.call(contract_addr, data, sender='')`: ElectrumX (session.py
 *   `contract_call`) passes qtumd's `callcontract` result through; qtum's contract_util.cpp
 *   `CallToContract` builds `{ address, executionResult: { gasUsed, excepted, newAddress, output,
 *   codeDeposit, gasRefunded, depositSize, gasForDeposit, exceptedMessage }, transactionReceipt:
 *   { stateRoot, utxoRoot, gasUsed, bloom, createdContracts, destructedContracts, log } }`, hex
 *   without 0x. `excepted` is cpp-ethereum's TransactionException name: "None", or
 *   "RevertInstruction" on a revert with the `Error(string)` reason in `exceptedMessage`.
 *   Daemon refusals reach the client as ElectrumX DAEMON_ERROR (code 2).
 * - `blockchain.contract.event.get_history(hash160, contract_addr, topic)` → `[{ tx_hash, height,
 *   log_index }]` (session.py `contract_event_get_history`; block_processor.py indexes a log of
 *   `contract_addr` under topic0 for every other topic that holds a 20-byte address, and
 *   `log_index` is the log's position in its transaction's receipt).
 */
import { AbiCoder, dataSlice } from 'ethers';
import { toJsonRpcError } from '../evm/jsonRpcErrors.ts';
import { DaemonRpcError } from '../../infra/utxo/daemonRpc.ts';
import { badRequest, daemonError, toElectrumError } from './electrumErrors.ts';
import type { ElectrumMethod, MethodContext } from './methodContext.ts';
import { positional } from './params.ts';

const HEX40 = /^[0-9a-fA-F]{40}$/;
const HEX64 = /^[0-9a-fA-F]{64}$/;
const EVEN_HEX = /^(?:[0-9a-fA-F]{2})*$/;
/** qtumd's RPC codes for the refusals it shares with this server. */
const QTUM_RPC = { invalidAddressOrKey: -5, typeError: -3 } as const;
const ERROR_STRING_SELECTOR = '0x08c379a0';

const refuse = (method: string, code: number, message: string) => daemonError(new DaemonRpcError(message, code, method));
const strip0x = (hex: string) => hex.replace(/^0x/, '');

type Evm = NonNullable<MethodContext['evm']>;
type Log = { topics: string[]; transactionHash: string; blockNumber: string; logIndex: string };
type Receipt = { logs: { logIndex: string }[] };

/** `eth_call`, folded into Qtum's execution result: output hex, exception name and revert reason. */
async function execute(evm: Evm, call: { to: string; data: string; from?: string }): Promise<{ output: string; excepted: string; exceptedMessage: string; gasUsed: number }> {
  try {
    const output = (await evm.request('eth_call', [call, 'latest'])) as string;
    // Qtum reports the gas of the call as a transaction (21000 intrinsic included), as estimateGas does.
    const gasUsed = Number(await evm.request('eth_estimateGas', [call]));
    return { output: strip0x(output), excepted: 'None', exceptedMessage: '', gasUsed };
  } catch (thrown) {
    const error = toJsonRpcError(thrown);
    if (error.data === undefined && !/revert/i.test(error.message)) throw toElectrumError(thrown);
    const output = error.data ?? '0x';
    let reason = '';
    if (output.startsWith(ERROR_STRING_SELECTOR)) reason = String(AbiCoder.defaultAbiCoder().decode(['string'], dataSlice(output, 4))[0]);
    return { output: strip0x(output), excepted: 'RevertInstruction', exceptedMessage: reason, gasUsed: 0 };
  }
}

const contractCall =
  (evm: Evm): ElectrumMethod =>
  async (params) => {
    const [address, data, sender = ''] = positional(params, 2, 3);
    if (typeof data !== 'string' || !EVEN_HEX.test(data)) throw refuse('callcontract', QTUM_RPC.typeError, 'Invalid data (data not hex)');
    if (typeof address !== 'string' || !HEX40.test(address)) throw refuse('callcontract', QTUM_RPC.invalidAddressOrKey, 'Incorrect address');
    if (typeof sender !== 'string' || (sender !== '' && !HEX40.test(sender))) throw refuse('callcontract', QTUM_RPC.invalidAddressOrKey, 'Incorrect sender address');
    const to = `0x${address}`;
    // qtumd answers "Address does not exist" for an unused account; here: one without code.
    if ((await evm.request('eth_getCode', [to, 'latest'])) === '0x') throw refuse('callcontract', QTUM_RPC.invalidAddressOrKey, 'Address does not exist');
    const result = await execute(evm, { to, data: `0x${data}`, ...(sender ? { from: `0x${sender}` } : {}) });
    const latest = (await evm.request('eth_getBlockByNumber', ['latest', false])) as { stateRoot: string };
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
  };

const eventHistory =
  (evm: Evm): ElectrumMethod =>
  async (params) => {
    const [hash160, contract, topic] = positional(params, 3, 3);
    if (typeof hash160 !== 'string' || !HEX40.test(hash160)) throw badRequest(`${String(hash160)} should be a hash160 (40 hex digits)`);
    if (typeof contract !== 'string' || !HEX40.test(contract)) throw badRequest(`${String(contract)} should be a contract address (40 hex digits)`);
    if (typeof topic !== 'string' || !HEX64.test(topic)) throw badRequest(`${String(topic)} should be a topic (64 hex digits)`);
    const addressTopic = `0x${'0'.repeat(24)}${hash160.toLowerCase()}`;
    // eth_getLogs answers in chain order, as ElectrumX's tx_num order.
    const logs = (await evm.request('eth_getLogs', [{ address: `0x${contract}`, fromBlock: '0x0', toBlock: 'latest', topics: [`0x${topic}`] }])) as Log[];
    const receipts = new Map<string, Promise<Receipt>>();
    const receiptOf = (hash: string) => {
      let receipt = receipts.get(hash);
      if (!receipt) receipts.set(hash, (receipt = evm.request('eth_getTransactionReceipt', [hash]) as Promise<Receipt>));
      return receipt;
    };
    return Promise.all(
      logs
        .filter((log) => log.topics.slice(1).some((t) => t.toLowerCase() === addressTopic))
        .map(async (log) => ({
          tx_hash: strip0x(log.transactionHash),
          height: Number(log.blockNumber),
          log_index: (await receiptOf(log.transactionHash)).logs.findIndex((l) => l.logIndex === log.logIndex),
        })),
    );
  };

/** The Qtum methods, bound to `evm`. */
export function contractMethods(evm: Evm): Record<string, ElectrumMethod> {
  return {
    'blockchain.contract.call': contractCall(evm),
    'blockchain.contract.event.get_history': eventHistory(evm),
  };
}
