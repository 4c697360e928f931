import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { id, Interface, toBeHex, zeroPadValue } from 'ethers';
import { startEvmDevnet, type EvmDevnet } from '../evm/evmDevnet.ts';
import { startLitecoind, type Litecoind } from '../litecoind/litecoind.ts';
import { startElectrumServer, type ElectrumServer } from './electrumServer.ts';
import { connectElectrum, ElectrumCallError, type ElectrumTestClient } from './electrumTestClient.ts';

const HOLDER = '00000000000000000000000000000000000a11ce';
const NOBODY = '000000000000000000000000000000000000dead';
const UNITS = 1_234_567_890n;
const ERC20 = new Interface(['function balanceOf(address) view returns (uint256)', 'function decimals() view returns (uint8)', 'function transfer(address,uint256) returns (bool)']);
const TRANSFER_TOPIC = id('Transfer(address,address,uint256)').slice(2);
const encode = (name: string, args: unknown[] = []) => ERC20.encodeFunctionData(name, args).slice(2);

type ContractCallResult = { address: string; executionResult: Record<string, unknown> & { output: string; excepted: string; gasUsed: number }; transactionReceipt: Record<string, unknown> };

describe('blockchain.contract.* (the Qtum ElectrumX extension) over an EVM devnet', () => {
  let evm: EvmDevnet;
  let node: Litecoind;
  let server: ElectrumServer;
  let client: ElectrumTestClient;
  let token: string;

  before(async () => {
    [evm, node] = await Promise.all([
      startEvmDevnet({ tokens: [{ symbol: 'QTEST', decimals: 8, mint: [{ address: `0x${HOLDER}`, amount: UNITS }] }] }),
      startLitecoind({ initialBlocks: 1 }),
    ]);
    token = evm.tokens[0]!.address.slice(2).toLowerCase();
    server = await startElectrumServer({ litecoind: node, evm, transports: ['TCP'] });
    client = await connectElectrum('TCP', server.tcp!);
  });
  after(async () => {
    client?.close();
    await server?.stop();
    await Promise.all([node?.stop(), evm?.stop()]);
  });

  test('contract.call runs balanceOf and answers in qtumd callcontract shape', async () => {
    const result = await client.call<ContractCallResult>('blockchain.contract.call', [token, encode('balanceOf', [`0x${HOLDER}`]), '']);
    assert.equal(result.address, token);
    assert.deepEqual(Object.keys(result.executionResult), ['gasUsed', 'excepted', 'newAddress', 'output', 'codeDeposit', 'gasRefunded', 'depositSize', 'gasForDeposit', 'exceptedMessage']);
    assert.equal(result.executionResult.excepted, 'None');
    assert.equal(result.executionResult.output, zeroPadValue(toBeHex(UNITS), 32).slice(2));
    assert.equal(result.executionResult.newAddress, token);
    assert.ok(result.executionResult.gasUsed > 21_000);
    assert.deepEqual(Object.keys(result.transactionReceipt), ['stateRoot', 'utxoRoot', 'gasUsed', 'bloom', 'createdContracts', 'destructedContracts', 'log']);
    assert.match(result.transactionReceipt.stateRoot as string, /^[0-9a-f]{64}$/);

    const decimals = await client.call<ContractCallResult>('blockchain.contract.call', [token, encode('decimals')]);
    assert.equal(BigInt(`0x${decimals.executionResult.output}`), 8n);
  });

  test('a revert is excepted "RevertInstruction" with the Error(string) reason', async () => {
    const result = await client.call<ContractCallResult>('blockchain.contract.call', [token, encode('transfer', [`0x${HOLDER}`, 1n]), NOBODY]);
    assert.equal(result.executionResult.excepted, 'RevertInstruction');
    assert.equal(result.executionResult.exceptedMessage, 'TestToken: insufficient balance');
    assert.match(result.executionResult.output, /^08c379a0/);
  });

  test('refusals are DAEMON_ERROR (2) with qtumd messages', async () => {
    const rejects = (params: unknown[], message: RegExp) =>
      assert.rejects(client.call('blockchain.contract.call', params), (e: unknown) => e instanceof ElectrumCallError && e.code === 2 && message.test(e.message));
    await rejects([`0x${token}`, encode('decimals')], /Incorrect address/);
    await rejects([token, 'abc'], /Invalid data \(data not hex\)/);
    await rejects([NOBODY, encode('decimals')], /Address does not exist/);
  });

  test('contract.event.get_history lists the Transfer logs that name the hash160', async () => {
    const history = await client.call<{ tx_hash: string; height: number; log_index: number }[]>('blockchain.contract.event.get_history', [HOLDER, token, TRANSFER_TOPIC]);
    assert.equal(history.length, 1);
    const receipt = (await evm.request('eth_getTransactionReceipt', [`0x${history[0]!.tx_hash}`])) as { blockNumber: string; to: string };
    assert.equal(receipt.to.toLowerCase(), `0x${token}`);
    assert.deepEqual(history[0], { tx_hash: history[0]!.tx_hash, height: Number(receipt.blockNumber), log_index: 0 });
    assert.deepEqual(await client.call('blockchain.contract.event.get_history', [NOBODY, token, TRANSFER_TOPIC]), []);
  });
});
