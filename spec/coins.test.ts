import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { REAL_COINS_FILE } from '../devnet/data/index.ts';
import { coinEntryValidator, parseCoinProtocol, PROTOCOL_NAMES, protocolTypeName, type CoinProtocolParse } from './coins.ts';

const REAL = JSON.parse(readFileSync(REAL_COINS_FILE, 'utf8')) as Array<{ coin: string; protocol?: unknown; chain_id?: unknown }>;
const entry = (ticker: string) => {
  const found = REAL.find((e) => e.coin === ticker);
  assert.ok(found, `real coins file has ${ticker}`);
  return found;
};
const parsed = (ticker: string) => parseCoinProtocol(entry(ticker));
const errorOf = (result: CoinProtocolParse): string => {
  assert.equal(result.ok, false);
  return (result as { error: string }).error;
};

describe('CoinEntrySchema on the real coins file', () => {
  it('accepts all 730 entries', () => {
    assert.equal(REAL.length, 730);
    REAL.forEach((e, i) => assert.equal(coinEntryValidator.firstProblem(e), undefined, `entry ${i} ${e.coin}`));
  });

  it('type-checks the fields it knows and keeps unknown keys', () => {
    const ok = coinEntryValidator.decode({ coin: 'X', protocol: { type: 'UTXO' }, custom: { a: 1 } });
    assert.ok(ok.ok && (ok.value as Record<string, unknown>)['custom'] !== undefined);
    assert.deepEqual(coinEntryValidator.firstProblem({ coin: 'X', decimals: '18' })?.field, 'decimals');
    assert.deepEqual(coinEntryValidator.firstProblem({ coin: 'X', mm2: 2 })?.field, 'mm2');
    assert.deepEqual(coinEntryValidator.firstProblem({ coin: 'X', protocol: { type: 5 } })?.field, 'protocol.type');
    assert.deepEqual(coinEntryValidator.firstProblem({ coin: 'X', derivation_path: "44'/60'" })?.field, 'derivation_path');
    assert.deepEqual(coinEntryValidator.firstProblem({ protocol: { type: 'UTXO' } })?.field, 'coin');
  });
});

describe('parseCoinProtocol on real entries', () => {
  it('ETH carries its chain id', () => {
    assert.deepEqual(parsed('ETH'), { ok: true, protocol: { type: 'ETH', chainId: 1 } });
    assert.deepEqual(parsed('MATIC'), { ok: true, protocol: { type: 'ETH', chainId: 137 } });
  });

  it('ERC20 gives platform and contract address, without checksum checks', () => {
    assert.deepEqual(parsed('1INCH-AVX20'), {
      ok: true,
      protocol: { type: 'ERC20', platform: 'AVAX', contractAddress: '0xd501281565bf7789224523144Fe5D98e8B28f267' },
    });
    // all lowercase in the real file: the EVM family, not the parser, rejects it
    const beamx = parsed('BEAMX-AVX20');
    assert.ok(beamx.ok && beamx.protocol.type === 'ERC20');
  });

  it('TRX carries its network and TRC20 its (base58) contract', () => {
    assert.deepEqual(parsed('TRX'), { ok: true, protocol: { type: 'TRX', network: 'Mainnet' } });
    assert.deepEqual(parsed('TRXT'), { ok: true, protocol: { type: 'TRX', network: 'Nile' } });
    assert.deepEqual(parsed('USDT-TRC20'), {
      ok: true,
      protocol: { type: 'TRC20', platform: 'TRX', contractAddress: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' },
    });
  });

  it('KMD is UTXO, QTUM is QTUM, a QRC20 has platform and contract', () => {
    assert.deepEqual(parsed('KMD'), { ok: true, protocol: { type: 'UTXO' } });
    assert.deepEqual(parsed('QTUM'), { ok: true, protocol: { type: 'QTUM' } });
    assert.deepEqual(parsed('CRT-QRC20'), {
      ok: true,
      protocol: { type: 'QRC20', platform: 'QTUM', contractAddress: '0x0f80aa32ba51e0acf171e106a1cfcd1eb9a9c3a5' },
    });
  });

  it('known but not activated types parse as Other (incl. NFT and SIA from the real file)', () => {
    assert.deepEqual(parsed('ATOM'), { ok: true, protocol: { type: 'Other', name: 'TENDERMINT' } });
    assert.deepEqual(parsed('ARRR'), { ok: true, protocol: { type: 'Other', name: 'ZHTLC' } });
    assert.deepEqual(parsed('NFT_ETH'), { ok: true, protocol: { type: 'Other', name: 'NFT' } });
    assert.deepEqual(parsed('SC'), { ok: true, protocol: { type: 'Other', name: 'SIA' } });
    const atom = parsed('ATOM');
    assert.ok(atom.ok);
    assert.equal(protocolTypeName(atom.protocol), 'TENDERMINT');
  });

  it('every real entry parses', () => {
    for (const e of REAL) assert.equal(parseCoinProtocol(e).ok, true, e.coin);
  });
});

describe('parseCoinProtocol failures', () => {
  const listsAllNames = (message: string) => {
    for (const name of PROTOCOL_NAMES) assert.match(message, new RegExp(`\\b${name}\\b`), `lists ${name}`);
  };

  it('unknown type lists the allowed protocol names', () => {
    const message = errorOf(parseCoinProtocol({ protocol: { type: 'FOO' } }));
    assert.match(message, /"FOO"/);
    listsAllNames(message);
    assert.equal(PROTOCOL_NAMES.length, 13);
  });

  it('missing or malformed protocol lists the names too', () => {
    listsAllNames(errorOf(parseCoinProtocol({})));
    listsAllNames(errorOf(parseCoinProtocol({ protocol: 'ETH' })));
    listsAllNames(errorOf(parseCoinProtocol({ protocol: { type: 1 } })));
    listsAllNames(errorOf(parseCoinProtocol({ protocol: null })));
  });

  it('token protocol_data must have platform and contract_address', () => {
    assert.match(errorOf(parseCoinProtocol({ protocol: { type: 'ERC20' } })), /ERC20.*protocol_data/);
    assert.match(
      errorOf(parseCoinProtocol({ protocol: { type: 'ERC20', protocol_data: { platform: 'ETH' } } })),
      /contract_address/,
    );
    assert.match(
      errorOf(parseCoinProtocol({ protocol: { type: 'QRC20', protocol_data: { contract_address: '0x1' } } })),
      /platform/,
    );
  });

  it('TRX network must be Mainnet, Shasta or Nile', () => {
    const message = errorOf(parseCoinProtocol({ protocol: { type: 'TRX', protocol_data: { network: 'Testnet' } } }));
    assert.match(message, /Mainnet, Shasta, Nile/);
    assert.equal(parseCoinProtocol({ protocol: { type: 'TRX', protocol_data: { network: 'Shasta' } } }).ok, true);
  });

  it('ETH chain id: top level alone is used; a mismatch or a bad value fails', () => {
    assert.deepEqual(parseCoinProtocol({ chain_id: 5, protocol: { type: 'ETH' } }), {
      ok: true,
      protocol: { type: 'ETH', chainId: 5 },
    });
    assert.deepEqual(parseCoinProtocol({ protocol: { type: 'ETH' } }), { ok: true, protocol: { type: 'ETH' } });
    assert.match(
      errorOf(parseCoinProtocol({ chain_id: 5, protocol: { type: 'ETH', protocol_data: { chain_id: 1 } } })),
      /differs/,
    );
    assert.match(errorOf(parseCoinProtocol({ protocol: { type: 'ETH', protocol_data: { chain_id: '1' } } })), /chain_id/);
  });
});

describe('TRX protocol_data.multicall_address', () => {
  const trx = (data: Record<string, unknown>) => parseCoinProtocol({ protocol: { type: 'TRX', protocol_data: { network: 'Nile', ...data } } });
  it('absent: no multicall; a base58 or 41-hex TRON address is kept as written', () => {
    assert.deepEqual(trx({}), { ok: true, protocol: { type: 'TRX', network: 'Nile' } });
    for (const address of ['TUVDpTWbfgDBNNs5oq8C8ZvVy7FpHrGr3s', '41ca11bde05977b3631167028862be2a173976ca11']) {
      assert.deepEqual(trx({ multicall_address: address }), { ok: true, protocol: { type: 'TRX', network: 'Nile', multicallAddress: address } });
    }
  });
  it('anything else is a parse error naming the field', () => {
    for (const bad of ['0xcA11bde05977b3631167028862bE2a173976CA11', '', 42, 'T0000000000000000000000000000000000']) {
      const result = trx({ multicall_address: bad });
      assert.equal(result.ok, false, String(bad));
      assert.match((result as { error: string }).error, /protocol_data\.multicall_address must be a TRON address/);
    }
  });
});
