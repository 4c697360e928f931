import type { EventOf } from '../../spec/events.ts';
import type { CoinSettings } from '../../spec/coinSettings.ts';
import { EventScript } from './eventScript.ts';

type Activation = EventOf<'CoinActivated'>['data'];

/** Settings of an EVM coin as a v2 activation records them (`overrides` replace fields). */
export function coinSettings(overrides: Partial<CoinSettings> = {}): CoinSettings {
  return {
    requiredConfirmations: 3,
    requiresNotarization: false,
    mm2: 1,
    walletOnly: false,
    swapContractAddress: '0x24ABE4c71FC658C91313b6552cd40cD808b3Ea80',
    fallbackSwapContract: null,
    swapV2Contracts: null,
    gasStation: { origin: 'https://gas.example', decimals: 8, policy: 'MeanAverageFast' },
    txHistory: false,
    ...overrides,
  };
}

/**
 * A `CoinActivated` payload of `ticker` with `tokens`: 1.5 ETH-like balance and one balance per
 * token unless `noBalances`. `settings`: record the settings (platform and each
 * token, as activations do since issue 13); without it, an event as older logs hold it.
 */
export function activation(
  ticker: string,
  tokens: readonly string[] = [],
  options: { noBalances?: boolean; attempt?: number; hd?: boolean; settings?: boolean } = {},
): Activation {
  const withBalance = options.noBalances !== true;
  const settings = options.settings === true ? { settings: coinSettings() } : {};
  return {
    ticker,
    family: 'evm',
    address: '0xf5c3bf03cBA4E343484588932e423A7C8BFf102d',
    pubkey: `04${'cd'.repeat(64)}`,
    derivationMethod: options.hd === true ? 'HDWallet' : 'Iguana',
    currentBlock: 1234,
    ...(withBalance ? { balance: { spendable: '1.5', unspendable: '0' } } : {}),
    tokens: tokens.map((t, i) => ({
      ticker: t,
      contractAddress: `0x${String(i + 1).padStart(40, '0')}`,
      decimals: 6,
      ...(withBalance ? { balance: { spendable: `${i + 1}0.25`, unspendable: '0' } } : {}),
      ...settings,
    })),
    attempt: options.attempt ?? 1,
    ...(options.hd === true ? { derivationPath: "m/44'/60'/0'/0/0" } : {}),
    ...settings,
  };
}

const requested = (ticker: string, tokens: readonly string[], attempt = 1): EventOf<'ActivationRequested'> => ({
  type: 'ActivationRequested',
  data: { ticker, family: 'evm', via: 'enable_eth_with_tokens', tokens: [...tokens], getBalances: true, attempt },
});

type NodeTry = Omit<EventOf<'NodeAttempted'>['data'], 'ticker' | 'family' | 'attempt' | 'taskId'>;
/** Progress of attempt 1 (issue 15): it changes no status. */
const nodeAttempted = (ticker: string, node: NodeTry, taskId?: number): EventOf<'NodeAttempted'> => ({
  type: 'NodeAttempted',
  data: { ticker, family: 'evm', attempt: 1, ...(taskId === undefined ? {} : { taskId }), ...node },
});

const gasPrice = (ticker: string, gwei: number, at: string): EventOf<'GasPriceUpdated'> => ({
  type: 'GasPriceUpdated',
  data: { ticker, gasPriceWei: `${gwei}000000000`, updatedAt: at },
});
const gasStale = (ticker: string, since: string): EventOf<'GasPriceStale'> => ({
  type: 'GasPriceStale',
  data: { ticker, since, reason: 'Failed to get the gas price from the gas station http://127.0.0.1:1: HTTP 500 Internal Server Error' },
});

/**
 * A node's busy life, covering every status the KV shows: coins active (with balances), failed,
 * passive, disabled, token disabled, re-activated from passive; gas prices read, changed, stale
 * (kept through a token disabled, dropped when the coin goes passive or is disabled); tasks Ok,
 * Error, in progress, user action, cancelled, forgotten, interrupted; and a second session
 * resetting the coins; activation progress (node attempts, tokens read, an HD window), which
 * changes no status. The first session's activations carry no settings (as logs written before
 * issue 13); the second's do, and change some (`RequiredConfirmationsSet`, `RequiresNotarizationSet`).
 */
export function busyNode(nodeId: string, options: { startTime?: number } = {}): EventScript {
  const s = new EventScript(nodeId, options);
  s.session();
  s.coin('ETH', requested('ETH', ['USDT-ERC20', 'DAI-ERC20']));
  s.coin('ETH', { type: 'CoinActivated', data: activation('ETH', ['USDT-ERC20', 'DAI-ERC20']) });
  s.coin('ETH', gasPrice('ETH', 75, '2025-01-01T00:00:03.500Z'));
  s.coin('BNB', requested('BNB', []));
  s.coin('BNB', nodeAttempted('BNB', { read: 1, retry: 0, node: 0, origin: 'http://127.0.0.1:1', outcome: 'busy', ms: 3, retryAfterMs: 30_000 }));
  s.coin('BNB', nodeAttempted('BNB', { read: 1, retry: 1, node: 1, origin: 'https://bsc.example', outcome: 'timedOut', ms: 10_000 }));
  s.coin('BNB', { type: 'ActivationFailed', data: { ticker: 'BNB', error: { errorType: 'Transport', message: 'all nodes down', data: 'all nodes down' }, attempt: 1 } });
  s.coin('ETH', gasStale('ETH', '2025-01-01T00:01:03.500Z'));
  s.coin('ETH', { type: 'TokenDisabled', data: { ticker: 'DAI-ERC20', platform: 'ETH' } });
  s.coin('ETH', { type: 'CoinPassivated', data: { ticker: 'ETH', activeTokens: ['USDT-ERC20'] } });
  s.coin('MATIC', requested('MATIC', []));
  s.coin('MATIC', { type: 'CoinActivated', data: activation('MATIC', [], { noBalances: true }) });
  s.coin('MATIC', gasPrice('MATIC', 30, '2025-01-01T00:00:09.500Z'));
  s.coin('MATIC', gasPrice('MATIC', 31, '2025-01-01T00:01:09.500Z'));
  s.coin('MATIC', { type: 'CoinDisabled', data: { ticker: 'MATIC', tokens: [] } });
  s.task(0, { type: 'TaskCreated', data: { taskId: 0, ticker: 'AVAX', tokens: ['USDC-AVX20'], keyPolicy: 'ContextPrivKey', getBalances: true } });
  s.task(0, { type: 'TaskProgressed', data: { taskId: 0, status: 'InProgress', details: 'RequestingBalances' } });
  s.coin('AVAX', requested('AVAX', ['USDC-AVX20']));
  s.coin('AVAX', nodeAttempted('AVAX', { read: 1, retry: 0, node: 0, origin: 'https://avax.example', outcome: 'answered', ms: 41 }, 0));
  s.coin('AVAX', { type: 'TokensRead', data: { ticker: 'AVAX', family: 'evm', attempt: 1, taskId: 0, read: 1, of: 1 } });
  s.coin('AVAX', {
    type: 'HdWindowScanned',
    data: { ticker: 'AVAX', family: 'evm', attempt: 1, taskId: 0, accountIndex: 0, chain: 'External', fromIndex: 0, checked: 20, used: 1, knownAddresses: 1 },
  });
  s.coin('AVAX', { type: 'CoinActivated', data: activation('AVAX', ['USDC-AVX20']) });
  s.task(0, { type: 'TaskSucceeded', data: { taskId: 0, activation: activation('AVAX', ['USDC-AVX20']) } });
  s.task(1, { type: 'TaskCreated', data: { taskId: 1, ticker: 'FTM', tokens: [], keyPolicy: 'Hardware', getBalances: false } });
  s.task(1, { type: 'TaskProgressed', data: { taskId: 1, status: 'UserActionRequired', details: 'EnterTrezorPin' } });
  s.task(1, { type: 'HardwarePinEntered', data: { taskId: 1 } });
  s.task(1, { type: 'TaskFailed', data: { taskId: 1, error: { errorType: 'HwError', message: 'device said no', data: 'device said no' } } });
  s.task(2, { type: 'TaskCreated', data: { taskId: 2, ticker: 'ONE', tokens: [], keyPolicy: 'ContextPrivKey', getBalances: true } });
  s.task(2, { type: 'TaskCancelled', data: { taskId: 2 } });
  s.task(0, { type: 'TaskForgotten', data: { taskId: 0 } });
  s.task(4, { type: 'TaskCreated', data: { taskId: 4, ticker: 'GLMR', tokens: [], keyPolicy: 'ContextPrivKey', getBalances: false } });
  s.coin('GLMR', requested('GLMR', []));
  // The service stops mid-activation; the next session starts every coin inactive.
  const dead = s.sessionId;
  s.session();
  s.coin('GLMR', { type: 'ActivationInterrupted', data: { ticker: 'GLMR', attempt: 1, sessionId: dead } });
  s.task(4, { type: 'TaskInterrupted', data: { taskId: 4, sessionId: dead } });
  s.coin('ETH', requested('ETH', ['USDT-ERC20']));
  s.coin('ETH', { type: 'CoinActivated', data: activation('ETH', ['USDT-ERC20'], { attempt: 1, settings: true }) });
  s.coin('ETH', { type: 'RequiredConfirmationsSet', data: { ticker: 'USDT-ERC20', platform: 'ETH', confirmations: 12 } });
  s.coin('ETH', { type: 'RequiresNotarizationSet', data: { ticker: 'ETH', platform: 'ETH', requiresNotarization: true } });
  s.coin('ETH', gasPrice('ETH', 80, '2025-01-01T01:00:00.000Z'));
  s.coin('ETH', gasStale('ETH', '2025-01-01T01:01:00.000Z'));
  s.task(3, { type: 'TaskCreated', data: { taskId: 3, ticker: 'ETC', tokens: [], keyPolicy: 'Hardware', getBalances: false } });
  s.task(3, { type: 'TaskProgressed', data: { taskId: 3, status: 'UserActionRequired', details: 'EnterTrezorPin' } });
  return s;
}
