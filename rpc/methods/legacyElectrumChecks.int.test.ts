import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startStack, type Stack } from '../../devnet/testing/stack.ts';
import { refusedUrl, startSilentNode } from '../../devnet/index.ts';

const SWAP = '0x2f754733acd6d753731c00fee32cb484551cc15d';

/** `host:port` of a port nobody listens on. */
const deadServer = async () => (await refusedUrl()).replace('http://', '');

describe('legacy electrum: request checks in the reference order (spec 7.2, docs/compatibility.md §9)', () => {
  let s: Stack;
  before(async () => {
    s = await startStack({
      extraCoins: [
        { coin: 'KMD', mm2: 1, pubtype: 60, protocol: { type: 'UTXO' } },
        { coin: 'NOMM2', pubtype: 60, protocol: { type: 'UTXO' } },
        { coin: 'NOPROTO', mm2: 1, pubtype: 60 },
        { coin: 'SEGWIT-NOHRP', mm2: 1, address_format: { format: 'segwit' }, protocol: { type: 'UTXO' } },
        { coin: 'ATOM', mm2: 1, protocol: { type: 'TENDERMINT', protocol_data: {} } },
        { coin: 'QTOK-QRC20', mm2: 1, pubtype: 120, protocol: { type: 'QRC20', protocol_data: { platform: 'QTUM', contract_address: '0x2f754733acd6d753731c00fee32cb484551cc15d' } } },
        { coin: 'QBAD-QRC20', mm2: 1, pubtype: 120, protocol: { type: 'QRC20', protocol_data: { platform: 'QTUM', contract_address: 'not-hex' } } },
      ],
    });
  });
  after(() => s.stop());

  const electrum = (fields: Record<string, unknown>) => s.legacy('electrum', fields);
  const tcp = (url: string) => ({ url, protocol: 'TCP' });

  const cases: [string, () => Promise<Record<string, unknown>>, string | RegExp][] = [
    ['mm2 set neither in the coins file nor the request', async () => ({ coin: 'NOMM2', servers: [tcp(await deadServer())] }), 'mm2 param is not set neither in coins config nor enable request, assuming that coin is not supported'],
    ['no protocol in the coins file', async () => ({ coin: 'NOPROTO', servers: [tcp(await deadServer())] }), /^"protocol" field is missing in coins file/],
    ['an unknown coin (no entry: no mm2)', async () => ({ coin: 'NOPE', servers: [] }), /^mm2 param is not set neither/],
    ['min_connected 0', async () => ({ coin: 'KMD', servers: [tcp(await deadServer())], min_connected: 0 }), 'min_connected should be greater than 0'],
    ['min_connected above max_connected', async () => ({ coin: 'KMD', servers: [tcp(await deadServer()), tcp(await deadServer())], min_connected: 2, max_connected: 1 }), 'min_connected (2) must be <= max_connected (1)'],
    ['an empty server list', async () => ({ coin: 'KMD', servers: [] }), 'min_connected (1) must be <= max_connected (0)'],
    ['no servers at all', async () => ({ coin: 'KMD' }), /^servers: a list of electrum servers/],
    ['a server that is not host:port', async () => ({ coin: 'KMD', servers: [tcp('electrum.example')] }), 'servers[0].url "electrum.example": expected host:port'],
    ['segwit without bech32_hrp', async () => ({ coin: 'SEGWIT-NOHRP', servers: [tcp(await deadServer())] }), 'SEGWIT-NOHRP: address_format segwit needs bech32_hrp in the coins file'],
    ['a requested CashAddr prefix that is not letters and digits', async () => ({ coin: 'KMD', servers: [tcp(await deadServer())], address_format: { format: 'cashaddress', network: 'bitcoin cash' } }), 'KMD: address_format network "bitcoin cash" is not a CashAddr prefix (1 to 83 ASCII letters or digits)'],
    ['segwit requested for a standard entry', async () => ({ coin: 'KMD', servers: [tcp(await deadServer())], address_format: { format: 'segwit' } }), "KMD: address_format segwit cannot replace the coins file's standard: both must be segwit, or both standard/cashaddress"],
    ['a protocol this service does not activate', async () => ({ coin: 'ATOM', servers: [tcp(await deadServer())] }), 'TENDERMINT protocol is not supported by lp_coininit: this service does not activate TENDERMINT coins (spec 1.3)'],
    ['a protocol electrum does not serve', async () => ({ coin: 'ETH', servers: [tcp(await deadServer())] }), 'ETH protocol is not supported by electrum: electrum activates UTXO, QTUM and QRC20 coins (spec 1.3)'],
    ['a QRC20 swap contract without 0x', async () => ({ coin: 'QTOK-QRC20', servers: [tcp(await deadServer())], swap_contract_address: 'nope' }), 'swap_contract_address: 0x prefix is missing'],
    ['a QRC20 swap contract checked before the servers', async () => ({ coin: 'QTOK-QRC20', swap_contract_address: '0x12' }), 'swap_contract_address: invalid length 2, expected a 0x-prefixed hex string with length of 40'],
    ['a QRC20 fallback swap contract that is not 40 hex digits', async () => ({ coin: 'QTOK-QRC20', servers: [tcp(await deadServer())], swap_contract_address: SWAP, fallback_swap_contract: '0xzz' }), 'fallback_swap_contract: invalid length 2, expected a 0x-prefixed hex string with length of 40'],
    ['a QRC20 entry whose contract is not 40 hex digits', async () => ({ coin: 'QBAD-QRC20', servers: [tcp(await deadServer())], swap_contract_address: SWAP }), 'QBAD-QRC20: QRC20 contract_address must be 40 hex digits'],
    ['TRON', async () => ({ coin: 'TRX', mm2: 1, servers: [tcp(await deadServer())] }), /^TRX protocol is not supported by lp_coininit/],
    ['utxo_merge_params without merge_at', async () => ({ coin: 'KMD', servers: [tcp(await deadServer())], utxo_merge_params: { check_every: 10 } }), 'Error parsing request: utxo_merge_params.merge_at: Expected required property'],
    ['utxo_merge_params of another type', async () => ({ coin: 'KMD', servers: [tcp(await deadServer())], utxo_merge_params: 'sometimes' }), 'Error parsing request: utxo_merge_params: Expected object or null'],
    ['utxo_merge_params well formed: refused, not ignored', async () => ({ coin: 'KMD', servers: [tcp(await deadServer())], utxo_merge_params: { merge_at: 50, check_every: 10, max_merge_at_once: 25 } }), 'utxo_merge_params is not supported: merging UTXOs means signing and broadcasting transactions, which this service never does (it only activates coins); leave utxo_merge_params out or send null'],
    ['another address than the Iguana key\'s one', async () => ({ coin: 'KMD', servers: [tcp(await deadServer())], path_to_address: { account_id: 0, chain: 'External', address_id: 5 } }), 'path_to_address asks for account 0, External, address 5 of KMD, but an Iguana key (enable_hd false) has one address per coin: leave path_to_address out (or give account 0, External, address 0), or set enable_hd to choose an HD address'],
  ];
  for (const [name, body, message] of cases) {
    test(name, async () => {
      const { status, body: answer } = await electrum(await body());
      assert.equal(status, 500, JSON.stringify(answer));
      assert.deepEqual(Object.keys(answer), ['error']);
      if (message instanceof RegExp) assert.match(answer.error, message);
      else assert.equal(answer.error, message);
      assert.deepEqual((await s.v2('get_enabled_coins')).body.result.coins, []);
    });
  }

  // The node never answers: had the request reached it, the activation would wait for the (manual) clock, so a bound makes that a failure.
  test('a QRC20 without swap_contract_address is refused naming it, before any server is contacted (spec 4.7)', { timeout: 10_000 }, async () => {
    const node = await startSilentNode();
    try {
      const { status, body } = await electrum({ coin: 'QTOK-QRC20', servers: [tcp(node.url.replace('http://', ''))] });
      assert.equal(status, 500);
      assert.deepEqual(body, { error: 'swap_contract_address: invalid type: null, expected a 0x-prefixed hex string with length of 40' });
      assert.equal(node.connections(), 0);
      assert.deepEqual((await s.v2('get_enabled_coins')).body.result.coins, []);
    } finally {
      await node.stop();
    }
  });

  test('all servers down: the 7.2 message names each server, nothing is registered', async () => {
    const a = await deadServer();
    const b = await deadServer();
    const { status, body } = await electrum({ coin: 'KMD', servers: [tcp(a), { url: b, protocol: 'SSL' }] });
    assert.equal(status, 500);
    assert.match(body.error, new RegExp(`^All electrum servers for KMD are unavailable: .*${a} \\(TCP\\): .*ECONNREFUSED.*${b} \\(SSL\\)`));
    assert.deepEqual((await s.v2('get_enabled_coins')).body.result.coins, []);
  });
});
