import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadNodeConfig, isStrongPassword } from '../../infra/config/index.ts';
import { createIguanaKeyProvider, evmAddress, hash160 } from '../../infra/keys/index.ts';
import { DEV_LTC_COIN, startDevUtxo, startPreferringPort, type DevUtxo } from './devUtxo.ts';
import { banner } from './devBanner.ts';
import { startService, type RunningService } from '../../service.ts';
import { deployTestNfts, startEvmDevnet, startNftIndexer, startTronNode, type EvmDevnet, type NftIndexer, type TronNode } from '../index.ts';
import { devnetCoins } from './devnetCoins.ts';

/** Tokens the dev chain deploys and mints to the dev wallet. */
const DEV_TOKENS = [
  { symbol: 'USDT', decimals: 6, amount: 25_000_000_000n }, // 25 000
  { symbol: 'DAI', decimals: 18, amount: 1_500n * 10n ** 18n + 5n * 10n ** 17n }, // 1500.5
] as const;
const DEV_ETH_WEI = 10n * 10n ** 18n;

export interface DevMode {
  readonly devnet: EvmDevnet;
  /** The TRON HTTP node over the same chain (TRX balance = the wallet's wei, as SUN). */
  readonly tron: TronNode;
  /** litecoind regtest + the devnet Electrum server, when litecoind is installed. */
  readonly utxo: DevUtxo;
  /** An NFT indexer over the chain, which holds an ERC721 and an ERC1155 NFT of the wallet. */
  readonly nftIndexer: NftIndexer;
  readonly service: RunningService;
  readonly password: string;
  readonly address: string;
  /** Human-readable banner with ready-to-paste curl commands. */
  readonly banner: string;
  /** Stops the service (telling shutdown-signal listeners `signal`, if given) and the peers. */
  stop(signal?: string): Promise<void>;
}

/**
 * Dev mode (no MM2.json): an in-process EVM devnet on 127.0.0.1 with two ERC20s, a TRON HTTP node
 * over the same chain (the ERC20s double as TRC20s), a regtest litecoind behind an Electrum
 * server (when litecoind is installed), a generated
 * config under `<dir>` (kept between runs so the password and wallet stay the same; delete the
 * folder to reset), and the service on `rpcport` (default 7783). Nothing leaves the machine.
 */
export async function startDevMode(options: {
  dir: string;
  /** RPC port written to the config (default 7783). */
  rpcport?: number;
  /** Port actually bound, overriding the config (0 in tests). */
  listenPort?: number;
  /** Devnet port (default 8545 when free, so pasted commands survive a restart). */
  devnetPort?: number;
  /** TRON node port (default 8090, java-tron's HTTP port, when free). */
  tronPort?: number;
  /** Electrum server port (default 50001, the usual Electrum TCP port, when free). */
  electrumPort?: number;
}): Promise<DevMode> {
  await mkdir(options.dir, { recursive: true });
  const confPath = join(options.dir, 'MM2.json');
  const secrets = await devSecrets(confPath);
  const keys = createIguanaKeyProvider(secrets.passphrase);
  const address = evmAddress(await keys.publicKey({ coin: 'ETH' }));

  const devnetOptions = {
    fund: [{ address, wei: DEV_ETH_WEI }],
    tokens: DEV_TOKENS.map((t) => ({ symbol: t.symbol, decimals: t.decimals, mint: [{ address, amount: t.amount }] })),
  };
  const devnet = await startPreferringPort((port) => startEvmDevnet({ ...devnetOptions, port }), options.devnetPort ?? 8545, options.devnetPort !== undefined);
  let tron: TronNode | undefined;
  let utxo: DevUtxo | undefined;
  let nftIndexer: NftIndexer | undefined;
  try {
    const nfts = await deployTestNfts(devnet.request, devnet.deployer);
    await nfts.mint721(address, 1n);
    await nfts.mint1155(address, 1n, 5n);
    nftIndexer = await startNftIndexer({ evm: devnet });
    tron = await startPreferringPort((port) => startTronNode({ evm: devnet, port }), options.tronPort ?? 8090, options.tronPort !== undefined);
    const publicKey = await keys.publicKey({ coin: DEV_LTC_COIN.coin });
    utxo = await startDevUtxo(Buffer.from(hash160(publicKey.compressed)).toString('hex'), options.electrumPort ?? 50001);
    const coins = [...devnetCoins(devnet), DEV_LTC_COIN];
    const rpcport = options.rpcport ?? 7783;
    await writeFile(
      confPath,
      `${JSON.stringify({ ...secrets, rpcport, dbdir: join(options.dir, 'db'), coins }, null, 2)}\n`,
      { mode: 0o600 },
    );
    const config = await loadNodeConfig({ env: { MM_CONF_PATH: confPath } });
    const service = await startService({ config, ...(options.listenPort === undefined ? {} : { port: options.listenPort }) });
    const [node, ltc, indexer] = [tron, utxo, nftIndexer];
    return {
      devnet,
      tron: node,
      utxo: ltc,
      nftIndexer: indexer,
      service,
      password: secrets.rpc_password,
      address,
      banner: banner({ url: service.url, devnet, tron: node, utxo: ltc, nftIndexer: indexer, password: secrets.rpc_password, address, confPath }),
      async stop(signal?: string) {
        await service.stop(signal);
        await Promise.all([node.stop(), ltc.stop(), indexer.stop()]);
        await devnet.stop();
      },
    };
  } catch (error) {
    await Promise.all([tron?.stop(), utxo?.stop(), nftIndexer?.stop()]);
    await devnet.stop();
    throw error;
  }
}

/** Reuses the secrets of an earlier dev run, or generates a strong password and a passphrase. */
async function devSecrets(confPath: string): Promise<{ rpc_password: string; passphrase: string }> {
  if (existsSync(confPath)) {
    const earlier = JSON.parse(await readFile(confPath, 'utf8')) as { rpc_password?: unknown; passphrase?: unknown };
    if (typeof earlier.rpc_password === 'string' && typeof earlier.passphrase === 'string') {
      return { rpc_password: earlier.rpc_password, passphrase: earlier.passphrase };
    }
  }
  let rpc_password: string;
  do rpc_password = `Dev-${randomBytes(12).toString('base64url')}-7q`;
  while (!isStrongPassword(rpc_password));
  return { rpc_password, passphrase: `dev wallet ${randomBytes(16).toString('hex')}` };
}
