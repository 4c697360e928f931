/**
 * A disposable EVM chain for tests and benches: hardhat's EDR in this process, served as JSON-RPC
 * over HTTP and WebSocket on loopback, with funded accounts and TestToken ERC20s already deployed and minted.
 */
import { computeAddress, getAddress, toQuantity } from 'ethers';
import { startInProcessEvm, type EvmRequest } from './inProcessEvm.ts';
import { startJsonRpcServer } from './jsonRpcServer.ts';
import { compileTestToken, deployTestTokens, type DeployedTestToken, type TestTokenSpec } from './testTokens.ts';
import { CANONICAL_MULTICALL_ADDRESS, compileMulticall, installMulticall } from './multicallContract.ts';

/**
 * The deployer's key: hardhat's well-known account #0 (`0xf39F…2266`). Public knowledge, never
 * use it outside a devnet. Exported so tests can sign transactions locally.
 */
export const DEVNET_DEPLOYER_PRIVATE_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

/** The deployer's genesis balance: hardhat's default 10 000 ETH. */
export const DEVNET_DEPLOYER_BALANCE_WEI = 10_000n * 10n ** 18n;

export const DEVNET_DEFAULT_CHAIN_ID = 1337;

export interface EvmDevnetOptions {
  /** Default 1337. */
  chainId?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Native balances to set (the balance becomes exactly `wei`; repeated addresses add up). */
  fund?: { address: string; wei: bigint }[];
  /** ERC20s to deploy from contracts/TestToken.sol, in this order. */
  tokens?: TestTokenSpec[];
  /**
   * Whether the chain has the Multicall3-compatible contract at the canonical address (as most
   * public chains do). `false` runs a chain without it.
   * @default true
   */
  multicall?: boolean;
}

export interface EvmDevnet {
  /** `http://127.0.0.1:<port>`: JSON-RPC over HTTP, batches supported. */
  url: string;
  /** `ws://127.0.0.1:<port>`: the same over a WebSocket. */
  wsUrl: string;
  /** WebSocket connections accepted since start, and those open now. */
  webSockets(): { accepted: number; open: number };
  /** `eth_subscribe("newHeads")` subscriptions open now; each new block is pushed to them. */
  headSubscriptions(): number;
  chainId: number;
  /** The multicall contract's address, or `undefined` on a chain started without it. */
  multicall: string | undefined;
  /** Same order as `options.tokens`. */
  tokens: DeployedTestToken[];
  /** EIP-55 address of the account that deployed and owns the tokens (the node can sign for it). */
  deployer: string;
  /** Direct EIP-1193 call into the chain, bypassing HTTP. Keeps working after `stop()`. */
  request: EvmRequest;
  /** Stops the HTTP server and drops its connections. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts the chain, deploys and mints the tokens, sets the balances, and only then opens the
 * HTTP endpoint, so a returned devnet is ready to use.
 */
export async function startEvmDevnet(options: EvmDevnetOptions = {}): Promise<EvmDevnet> {
  const chainId = options.chainId ?? DEVNET_DEFAULT_CHAIN_ID;
  const tokenSpecs = options.tokens ?? [];
  const deployer = computeAddress(DEVNET_DEPLOYER_PRIVATE_KEY);
  const withMulticall = options.multicall ?? true;
  const [request, tokenArtifact, multicallArtifact] = await Promise.all([
    startInProcessEvm({ chainId, ownedAccounts: [{ privateKey: DEVNET_DEPLOYER_PRIVATE_KEY, balanceWei: DEVNET_DEPLOYER_BALANCE_WEI }] }),
    tokenSpecs.length > 0 ? compileTestToken() : undefined,
    withMulticall ? compileMulticall() : undefined,
  ]);
  const tokens = tokenArtifact ? await deployTestTokens(request, deployer, tokenSpecs, tokenArtifact) : [];
  if (multicallArtifact) await installMulticall(request, multicallArtifact);
  await setBalances(request, options.fund ?? []);
  // Every call, over HTTP, a WebSocket or `devnet.request`, goes through `mining`, which pushes new heads.
  let notify: (head: Record<string, unknown>) => void = () => undefined;
  const mining = withNewHeads(request, (head) => notify(head), await request('eth_blockNumber', []));
  const server = await startJsonRpcServer({ handle: mining, host: options.host, port: options.port });
  notify = server.notifyNewHead;
  const multicall = withMulticall ? CANONICAL_MULTICALL_ADDRESS : undefined;
  return {
    url: server.url,
    wsUrl: server.wsUrl,
    webSockets: server.webSockets,
    headSubscriptions: server.headSubscriptions,
    chainId,
    multicall,
    tokens,
    deployer,
    request: mining,
    stop: server.stop,
  };
}

/** Methods after which the chain may have a new block. */
const MINING_METHODS = new Set(['eth_sendTransaction', 'eth_sendRawTransaction', 'evm_mine', 'hardhat_mine']);

/**
 * `request` that pushes each new block to the `newHeads` subscribers after a call that may mine
 * one, whether it came over HTTP, a WebSocket or `devnet.request`.
 */
function withNewHeads(request: EvmRequest, notify: (head: Record<string, unknown>) => void, start: unknown): EvmRequest {
  let last = BigInt(start as string);
  return (async (method: string, params?: unknown[]) => {
    const result = await request(method, params);
    if (MINING_METHODS.has(method)) {
      const height = BigInt((await request('eth_blockNumber', [])) as string);
      const from = last;
      if (height > last) last = height; // before notifying: a concurrent call pushes only what is newer
      for (let n = from + 1n; n <= height; n++) notify({ number: `0x${n.toString(16)}` });
    }
    return result;
  }) as EvmRequest;
}

/** Sets balances after deployment so the deployer's gas spending cannot change a requested amount. */
async function setBalances(request: EvmRequest, fund: readonly { address: string; wei: bigint }[]): Promise<void> {
  const totals = new Map<string, bigint>();
  for (const { address, wei } of fund) {
    if (wei < 0n) throw new Error(`negative balance requested for ${address}`);
    const checksummed = getAddress(address);
    totals.set(checksummed, (totals.get(checksummed) ?? 0n) + wei);
  }
  for (const [address, wei] of totals) {
    await request('hardhat_setBalance', [address, toQuantity(wei)]);
  }
}
