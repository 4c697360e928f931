/**
 * Qtum's ElectrumX extension (qtumproject/qtum-electrumx-server) answered from an EVM, so QRC20
 * clients can be tested against a real ERC20. Shapes matched:
 * - `blockchain.contract.call(contract_addr, data, sender='')`: ElectrumX (session.py
 *   `contract_call`) passes qtumd's `callcontract` result through (../qtumd/callContract.ts, shared
 *   with the Qtum daemon double). Daemon refusals reach the client as ElectrumX DAEMON_ERROR (code 2).
 * - `blockchain.contract.event.get_history(hash160, contract_addr, topic)` → `[{ tx_hash, height,
 *   log_index }]` (session.py `contract_event_get_history`; block_processor.py indexes a log of
 *   `contract_addr` under topic0 for every other topic that holds a 20-byte address, and
 *   `log_index` is the log's position in its transaction's receipt).
 */
import { callContract, stringParam } from '../qtumd/callContract.ts';
import { badRequest, daemonError } from './electrumErrors.ts';
import type { ElectrumMethod, MethodContext } from './methodContext.ts';
import { positional } from './params.ts';

const HEX40 = /^[0-9a-fA-F]{40}$/;
const HEX64 = /^[0-9a-fA-F]{64}$/;

const strip0x = (hex: string) => hex.replace(/^0x/, '');

type Evm = NonNullable<MethodContext['evm']>;
type Log = { topics: string[]; transactionHash: string; blockNumber: string; logIndex: string };
type Receipt = { logs: { logIndex: string }[] };

const contractCall =
  (evm: Evm): ElectrumMethod =>
  async (params) => {
    const [address, data, sender = ''] = positional(params, 2, 3);
    try {
      // ElectrumX hands the params to qtumd as they came.
      const [to, input, from] = [address, data, sender].map((value) => stringParam(value, 'callcontract')) as [string, string, string];
      return await callContract(evm.request, to, input, from);
    } catch (error) {
      throw daemonError(error);
    }
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
