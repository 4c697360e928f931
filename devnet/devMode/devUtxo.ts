/**
 * The UTXO part of dev mode: a regtest litecoind (Debian's package; skipped with a note when it is
 * not installed) funding the dev wallet, and the devnet Electrum server over it, so `electrum`
 * activates a real UTXO coin offline. Everything listens on 127.0.0.1 only.
 */
import { existsSync } from 'node:fs';
import { startElectrumServer, type ElectrumServer } from '../electrum/electrumServer.ts';
import { startLitecoind, type Litecoind } from '../litecoind/litecoind.ts';
import { p2pkhAddress } from '../litecoind/litecoinRegtest.ts';

/** The dev wallet's regtest LTC (confirmed). */
export const DEV_LTC_LITOSHIS = 1_250_000_000n; // 12.5 LTC

/** The coins entry of the dev UTXO coin: Litecoin regtest parameters (P2PKH version 111). */
export const DEV_LTC_COIN = {
  coin: 'LTC',
  name: 'litecoin',
  fname: 'Litecoin (regtest devnet)',
  mm2: 1,
  decimals: 8,
  pubtype: 111,
  p2shtype: 58,
  wiftype: 239,
  bech32_hrp: 'rltc',
  network: 'regtest',
  mature_confirmations: 100,
  protocol: { type: 'UTXO' },
} as const;

export type DevUtxo =
  | { readonly running: true; readonly node: Litecoind; readonly electrum: ElectrumServer; readonly address: string; stop(): Promise<void> }
  | { readonly running: false; readonly reason: string; stop(): Promise<void> };

const LITECOIND_PATHS = ['/usr/bin/litecoind', '/usr/local/bin/litecoind'];

/** Starts litecoind funded for `hash160` (hex) and an Electrum server on `electrumPort` (0 = any). */
export async function startDevUtxo(hash160: string, electrumPort: number): Promise<DevUtxo> {
  if (!LITECOIND_PATHS.some(existsSync)) {
    return { running: false, reason: 'litecoind is not installed (sudo apt-get install -y litecoind)', stop: async () => undefined };
  }
  const node = await startLitecoind();
  try {
    const address = p2pkhAddress(hash160);
    await node.fund(address, DEV_LTC_LITOSHIS, 1);
    const electrum = await startPreferringPort((port) => startElectrumServer({ litecoind: node, transports: ['TCP'], ports: { TCP: port } }), electrumPort);
    return {
      running: true,
      node,
      electrum,
      address,
      async stop() {
        await electrum.stop();
        await node.stop();
      },
    };
  } catch (error) {
    await node.stop();
    throw error;
  }
}

/**
 * Starts on `preferred` so commands pasted earlier keep working across restarts, or on any free
 * port when that one is taken; `0` means any port at once.
 */
export async function startPreferringPort<T>(start: (port: number) => Promise<T>, preferred: number, explicit = false): Promise<T> {
  try {
    return await start(preferred);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || explicit || preferred === 0) throw error;
    return start(0);
  }
}
