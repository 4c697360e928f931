/**
 * A headless Chromium (Debian's `chromium` package) driven over the DevTools protocol, for the
 * dashboard's test. The protocol runs over a pipe (`--remote-debugging-pipe`: file descriptors 3
 * and 4), so the browser opens no debugging port. The flags below keep it on 127.0.0.1: no
 * background, update, sync, translation or metrics traffic, and every host name but `127.0.0.1`
 * resolves to nothing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { CdpSession, PipeConnection } from './cdp.ts';

/** Where Debian installs it (`apt-get install chromium`). */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Flags that keep the browser off the network except for the pages it is sent to on 127.0.0.1. */
export const OFFLINE_FLAGS = [
  '--headless',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
  '--disable-domain-reliability',
  '--disable-client-side-phishing-detection',
  '--disable-breakpad',
  '--disable-features=Translate,OptimizationHints,MediaRouter,OptimizationGuideModelDownloading,AutofillServerCommunication,CertificateTransparencyComponentUpdater,DialMediaRouteProvider,InterestFeedContentSuggestions',
  '--metrics-recording-only',
  '--no-pings',
  '--no-proxy-server',
  '--password-store=basic',
  '--use-mock-keychain',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
  '--disable-gpu',
  '--window-size=1280,900',
] as const;

export interface Chromium {
  /** A new tab at `about:blank`, attached. */
  newPage(): Promise<Page>;
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

export interface Page {
  readonly session: CdpSession;
  /** Navigates and resolves on the page's `load` event. */
  goto(url: string): Promise<void>;
  /** Evaluates `expression` in the page (awaiting a promise); returns its JSON value or throws its exception. */
  evaluate<T>(expression: string): Promise<T>;
  /** A PNG of the viewport. */
  screenshot(): Promise<Buffer>;
}

/** Starts Chromium headless with a fresh profile; throws when it is not installed. */
export async function launchChromium(options: { executablePath?: string } = {}): Promise<Chromium> {
  const executable = options.executablePath ?? CHROMIUM_PATH;
  if (!existsSync(executable)) throw new Error(`${executable} is missing: apt-get install -y chromium`);
  const profile = await mkdtemp(join(tmpdir(), 'chromium-'));
  const args = [
    ...OFFLINE_FLAGS,
    // Root (CI containers) cannot use Chromium's sandbox; the browser only opens the test's own pages.
    ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
    `--user-data-dir=${profile}`,
    '--remote-debugging-pipe',
    'about:blank',
  ];
  const child: ChildProcess = spawn(executable, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const connection = new PipeConnection(child.stdio[3] as Writable, child.stdio[4] as Readable);
  const browser = connection.root();
  try {
    await Promise.race([
      browser.send('Browser.getVersion'),
      exited.then(() => Promise.reject(new Error(`chromium exited at start: ${stderr.trim()}`))),
    ]);
  } catch (error) {
    child.kill('SIGKILL');
    await rm(profile, { recursive: true, force: true });
    throw error;
  }

  return {
    async newPage() {
      const { targetId } = await browser.send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
      const { sessionId } = await browser.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
      const session = connection.session(sessionId);
      await session.send('Page.enable');
      await session.send('Runtime.enable');
      return pageOf(session);
    },
    async close() {
      await browser.send('Browser.close').catch(() => {});
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
      connection.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

function pageOf(session: CdpSession): Page {
  return {
    session,
    async goto(url) {
      const loaded = session.once('Page.loadEventFired');
      const { errorText } = await session.send<{ errorText?: string }>('Page.navigate', { url });
      if (errorText !== undefined) throw new Error(`navigation to ${url} failed: ${errorText}`);
      await loaded;
    },
    async evaluate<T>(expression: string) {
      const answer = await session.send<{ result: { value?: unknown }; exceptionDetails?: { text: string; exception?: { description?: string } } }>(
        'Runtime.evaluate',
        { expression, awaitPromise: true, returnByValue: true },
      );
      if (answer.exceptionDetails !== undefined) {
        throw new Error(`page: ${answer.exceptionDetails.exception?.description ?? answer.exceptionDetails.text}`);
      }
      return answer.result.value as T;
    },
    async screenshot() {
      const { data } = await session.send<{ data: string }>('Page.captureScreenshot', { format: 'png' });
      return Buffer.from(data, 'base64');
    },
  };
}
