/**
 * The peers the coins walk activates against, shared by every method and every entry: the EVM
 * devnet (every token contract of the coins file holds TestToken's code and a balance for the test
 * wallet), the TRON node over it, a regtest litecoind with the Electrum server over it (QRC20 calls
 * run on the EVM), and a native daemon double (QRC20 `callcontract` on the EVM too) whose config
 * file is written, for every UTXO, QTUM and QRC20 entry, where the service looks for it (under a
 * temporary home directory; a QRC20 token reads its platform's).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { AbiCoder, getAddress, keccak256, toQuantity, zeroPadValue } from 'ethers';
import { crypto as btcCrypto, payments } from 'bitcoinjs-lib';
import { startTronNode, type EvmDevnet, type TronNode } from '../index.ts';
import { startLitecoind, type Litecoind } from '../litecoind/litecoind.ts';
import { LITECOIN_REGTEST, p2pkhAddress } from '../litecoind/litecoinRegtest.ts';
import { startElectrumServer, type ElectrumServer } from '../electrum/electrumServer.ts';
import { startWatchAllDaemon, type WatchAllDaemon } from '../nativeDaemon/watchAllDaemon.ts';
import { startTestDevnet, TEST_ADDRESS, TEST_PASSPHRASE } from '../testing/stack.ts';
import { createIguanaKeyProvider } from '../../infra/keys/index.ts';
import { tronToEvmAddress } from '../../infra/keys/tronAddress.ts';
import { daemonConfPath } from '../../infra/utxo/daemonConf.ts';
import type { CoinEntry } from '../../spec/coins.ts';

/** Base units every token contract holds for the test wallet (its decimals show in the table). */
export const WALK_TOKEN_BALANCE = 1_234_567_891_234_567_891n;
/** Litoshis on the test wallet's P2PKH and P2WPKH scripts (same script for every coin of a kind). */
export const WALK_P2PKH_FUNDS = 150_000_000n;
export const WALK_P2WPKH_FUNDS = 25_000_001n;

/** TestToken.sol's storage slot of `balanceOf` (name, symbol, totalSupply come first). */
const BALANCE_OF_SLOT = 3;
const HEX40 = /^(?:0x)?([0-9a-fA-F]{40})$/;
const NATIVE_PROTOCOLS = new Set(['UTXO', 'QTUM', 'QRC20']);

export interface WalkPeers {
  readonly evm: EvmDevnet;
  readonly tron: TronNode;
  readonly litecoind: Litecoind;
  readonly electrum: ElectrumServer;
  readonly daemon: WatchAllDaemon;
  stop(): Promise<void>;
}

/**
 * Starts every peer for `entries`. Sets `HOME` to a temporary directory holding the daemon config
 * files (the service finds a native daemon's config under the home directory, spec 4.7) until
 * `stop`, which restores it.
 */
export async function startWalkPeers(entries: readonly CoinEntry[]): Promise<WalkPeers> {
  const password = `walk-${process.pid}`;
  const [evm, litecoind, home] = await Promise.all([
    startTestDevnet({ tokens: [{ symbol: 'WALK', decimals: 18, amount: 0n }] }),
    startLitecoind(),
    mkdtemp(join(tmpdir(), 'coins-walk-home-')),
  ]);
  const daemon = await startWatchAllDaemon({ user: 'walk', password, evm });
  const hash160 = await walletHash160();
  await Promise.all([
    copyTokenEverywhere(evm, entries, [TEST_ADDRESS, `0x${hash160}`]),
    fundWallet(litecoind, hash160),
    writeDaemonConfs(entries, home, `rpcuser=walk\nrpcpassword=${password}\nrpcport=${daemon.port}\n`),
  ]);
  const [electrum, tron] = await Promise.all([startElectrumServer({ litecoind, evm, transports: ['TCP'] }), startTronNode({ evm })]);
  const previousHome = process.env.HOME;
  process.env.HOME = home;
  return {
    evm,
    tron,
    litecoind,
    electrum,
    daemon,
    async stop() {
      if (previousHome === undefined) delete process.env.HOME;
      else process.env.HOME = previousHome;
      await Promise.all([electrum.stop(), tron.stop(), daemon.stop()]);
      await Promise.all([litecoind.stop(), evm.stop(), rm(home, { recursive: true, force: true })]);
    },
  };
}

/** hash160 (hex) of the test wallet's compressed Iguana key: its UTXO scripts and its QRC20 account. */
async function walletHash160(): Promise<string> {
  const key = await createIguanaKeyProvider(TEST_PASSPHRASE).publicKey({ coin: 'walk' });
  return Buffer.from(btcCrypto.hash160(Buffer.from(key.compressed))).toString('hex');
}

/** The EVM account behind each token entry's contract (ERC20, QRC20 hex; TRC20 base58 or 41-hex). */
function contractAccounts(entries: readonly CoinEntry[]): string[] {
  const accounts = new Set<string>();
  for (const entry of entries) {
    const data = entry.protocol?.protocol_data as { contract_address?: unknown } | undefined;
    const raw = typeof data?.contract_address === 'string' ? data.contract_address : undefined;
    if (raw === undefined) continue;
    const type = entry.protocol?.type;
    const hex = type === 'TRC20' ? tronToEvmAddress(raw) : type === 'ERC20' || type === 'QRC20' ? HEX40.exec(raw)?.[1] : undefined;
    if (hex !== undefined) accounts.add(getAddress(hex.startsWith('0x') ? hex : `0x${hex}`));
  }
  return [...accounts];
}

/** Puts the deployed TestToken's code at every contract account, with `amount` for each owner. */
async function copyTokenEverywhere(evm: EvmDevnet, entries: readonly CoinEntry[], owners: readonly string[]): Promise<void> {
  const code = (await evm.request('eth_getCode', [evm.tokens[0]!.address, 'latest'])) as string;
  const slots = owners.map((owner) => keccak256(AbiCoder.defaultAbiCoder().encode(['address', 'uint256'], [owner, BALANCE_OF_SLOT])));
  const value = zeroPadValue(toQuantity(WALK_TOKEN_BALANCE), 32);
  const accounts = contractAccounts(entries);
  for (const account of accounts) {
    await evm.request('hardhat_setCode', [account, code]);
    for (const slot of slots) await evm.request('hardhat_setStorageAt', [account, slot, value]);
  }
  // The slot is TestToken's layout: check it once, so a changed contract fails here, not in the table.
  const call = { to: accounts[0], data: `0x70a08231${owners[0]!.slice(2).toLowerCase().padStart(64, '0')}` };
  if (BigInt((await evm.request('eth_call', [call, 'latest'])) as string) !== WALK_TOKEN_BALANCE) {
    throw new Error('TestToken balanceOf storage slot moved: update BALANCE_OF_SLOT');
  }
}

/** Funds the wallet's P2PKH and P2WPKH scripts on the regtest chain (one confirmation each). */
async function fundWallet(litecoind: Litecoind, hash160: string): Promise<void> {
  await litecoind.fund(p2pkhAddress(hash160), WALK_P2PKH_FUNDS, 1);
  const segwit = payments.p2wpkh({ hash: Buffer.from(hash160, 'hex'), network: LITECOIN_REGTEST }).address!;
  await litecoind.fund(segwit, WALK_P2WPKH_FUNDS, 1);
}

/** Writes `conf` wherever the service will look for each native entry's daemon config. */
async function writeDaemonConfs(entries: readonly CoinEntry[], home: string, conf: string): Promise<void> {
  for (const entry of entries) {
    if (!NATIVE_PROTOCOLS.has(entry.protocol?.type ?? '')) continue;
    const where = daemonConfPath(entry, home);
    if (!('path' in where) || !where.path.startsWith(home)) continue; // no config, or one outside the home: left as the file says
    await mkdir(dirname(where.path), { recursive: true });
    await writeFile(where.path, conf);
  }
}
