import { CommandKind, type ActivationCommand, type ChainFamily, type PlanContext } from '../../actors/ports/chainFamily.ts';
import { activatedPlatform, balanceFromRead, tokenFromRead, tokensForBalance, tokenToRead } from '../../actors/platformRead.ts';
import { ActivationVia, ChainFamilyId, KeyPolicy, type ActivatedCoin, type ActivationPlan, type Balance } from '../../machines/activation.types.ts';
import type { Clock } from '../../kernel/clock.ts';
import { BusyNodes } from '../failover/busyNodes.ts';
import type { KeyProvider } from '../keys/index.ts';
import { evmAddress } from '../keys/index.ts';
import { readAccount, readAddresses } from './accountReader.ts';
import { activateHdAccount } from '../../actors/hdActivation.ts';
import { isHdKeyProvider } from '../../actors/ports/keyProvider.ts';
import { createDeviceAccountKeys } from '../keys/deviceAccountKeys.ts';
import { evmNodeRunner, type EvmConnection } from './evmNodes.ts';
import { WsPool } from './wsPool.ts';
import { ReadPaths } from './multicall/multicallSupport.ts';
import { gatewaySigner, requireGatewaySigner } from '../gatewayProxy/gatewaySigner.ts';
import { planEvmPlatform, type EvmPlanParams } from './evmPlan.ts';
import { ERC20_RULE } from './evmAddressRules.ts';
import { activateLegacyEvm, planLegacyEvm } from './legacyEvmEnable.ts';
import { gasPriceFeed, withGasStation } from './gasStation.ts';
import { evmCoinWatch } from './evmBalanceWatch.ts';
import { balancePollOf } from '../../actors/ports/balanceWatch.ts';
import { allOrAbort } from '../../kernel/allOrAbort.ts';
import { planNftIndexer } from '../nftIndexer/nftPlan.ts';
import { listNfts, type NftIndexerLimits } from '../nftIndexer/nftIndexerClient.ts';
import { createEvmWithdraw } from './withdraw/evmWithdraw.ts';

export interface EvmFamilyOptions {
  readonly keys: KeyProvider;
  readonly clock: Clock;
  /** Budget of one node before failing over (default 10 s, as the reference). */
  readonly nodeTimeoutMs?: number;
  /** Most JSON-RPC calls per HTTP request; more go out as concurrent chunks (default 100). */
  readonly batchSize?: number;
  /** Nodes that answered "busy", shared with every family (default: a book of this family's own). */
  readonly busyNodes?: BusyNodes;
  /** Bounds of an `nft_req` indexer's listing (pages, NFTs, page size). */
  readonly nftIndexer?: NftIndexerLimits;
}

/**
 * EVM platforms (ETH, MATIC, BNB, … any `ETH` protocol entry) with their ERC20 tokens, and, through
 * legacy `enable`, an EVM coin or an ERC20 token on its own (spec 4.7).
 *
 * Where a platform request goes in here: `plan` → `evmPlan.ts` (EVM checks, then the shared token
 * and node checks of `actors/platformPlan.ts`, once); `activate` → one batched read with failover
 * (`evmNodes.ts`, `accountReader.ts`) → `actors/platformRead.ts` builds the coin (an HD key instead
 * goes to `actors/hdActivation.ts`, which scans through this family's `read`); a gas station is
 * read alongside and refreshed while the coin is active (`gasStation.ts`). Legacy `enable`
 * plans in `legacyEnablePlan.ts` and activates in `legacyEvmEnable.ts`, which builds its coin itself.
 */
export function createEvmFamily(options: EvmFamilyOptions): ChainFamily {
  const timeoutMs = options.nodeTimeoutMs ?? 10_000;
  const batchSize = options.batchSize ?? 100;

  const proxySigner = gatewaySigner(options.keys, options.clock);
  // How each node reads balances, learned this session, for every coin that uses the node.
  const readPaths = new ReadPaths();
  const busyNodes = options.busyNodes ?? new BusyNodes(options.clock);
  const withNodes = evmNodeRunner({ clock: options.clock, timeoutMs, batchSize, proxySigner, readPaths, busyNodes });
  const chainDeps = { keys: options.keys, clock: options.clock, timeoutMs, withNodes };
  const nftDeps = { ...options.nftIndexer, clock: options.clock, timeoutMs, signer: proxySigner };
  /** The sockets of each enabled coin, so that a passive platform's are closed when it is replaced. */
  const socketsOf = new Map<string, WsPool>();

  /** The key provider's key for the platform (no path: Iguana). */
  async function softwareKey(params: EvmPlanParams): Promise<{ uncompressedHex: string; address: string; derivationPath?: string }> {
    const publicKey = await options.keys.publicKey(params.platform);
    return { uncompressedHex: publicKey.uncompressedHex, address: evmAddress(publicKey) };
  }

  /** The platform's chain work and, with a gas station, its price, read concurrently (as legacy `enable`). */
  async function activatePlatform(plan: ActivationPlan, signal: AbortSignal, sockets: WsPool): Promise<ActivatedCoin> {
    const params = plan.params as EvmPlanParams;
    const [coin, gasPrice] = await withGasStation(params.gasStation, signal, chainDeps, (s) => readPlatform(plan, s, sockets));
    if (gasPrice === undefined) return coin;
    return { ...coin, connection: { ...(coin.connection as EvmConnection), gasPrice } };
  }

  async function readPlatform(plan: ActivationPlan, signal: AbortSignal, sockets: WsPool): Promise<ActivatedCoin> {
    const params = plan.params as EvmPlanParams;
    // A device's account: its addresses derived from the node it gave; else the mnemonic's.
    const keys = plan.deviceAccount !== undefined && plan.hd !== undefined ? createDeviceAccountKeys(plan.deviceAccount, plan.hd.walletId) : options.keys;
    if (plan.hd !== undefined && isHdKeyProvider(keys)) {
      const connection: EvmConnection = { chainId: params.chainId, nodes: params.nodes, sockets, ...balancePollOf(params.platform) };
      return activateHdAccount(
        plan,
        plan.hd,
        {
          keys,
          family: ChainFamilyId.Evm,
          entry: params.platform,
          tokens: params.tokens,
          decimals: params.decimals,
          addressOf: (publicKey) => {
            const address = evmAddress(publicKey);
            return { display: address, owner: address };
          },
          read: (owners, tokens, readSignal) => withNodes(connection, readSignal, (provider) => readAddresses(provider, owners, tokens)),
          connectionFor: () => connection,
        },
        signal,
      );
    }
    if (plan.deviceHd !== undefined) throw new Error('a device account reached the family without its node'); // never: the task reads it first
    const key = plan.key ?? (await softwareKey(params));
    signal.throwIfAborted();
    const address = key.address;
    const connection: EvmConnection = { chainId: params.chainId, nodes: params.nodes, sockets, ...balancePollOf(params.platform) };
    // With `nft_req` the indexer is asked alongside the chain (also without balances, as the reference).
    const nft = params.nftIndexer;
    const [read, nfts] = await allOrAbort(signal, [
      (s: AbortSignal) => withNodes(connection, s, (provider) => readAccount(provider, address, params.tokens, plan.getBalances)),
      (s: AbortSignal) => (nft === undefined ? Promise.resolve(undefined) : listNfts(nft, address, nft.chain, s, nftDeps)),
    ]);
    const coin = activatedPlatform(
      {
        plan,
        family: ChainFamilyId.Evm,
        address,
        pubkey: key.uncompressedHex,
        derivationMethod: plan.key === undefined ? options.keys.derivationMethod : 'HDWallet',
        derivationPath: key.derivationPath,
        decimals: params.decimals,
        tokens: params.tokens,
        connection,
      },
      read,
    );
    return nfts === undefined ? coin : { ...coin, nfts };
  }

  return {
    id: ChainFamilyId.Evm,
    serves: { platform: ['ETH'], enable: ['ETH', 'ERC20'] },

    plan(command: ActivationCommand, context: PlanContext): ActivationPlan {
      switch (command.kind) {
        case CommandKind.Platform: {
          const plan = planEvmPlatform(command, context);
          requireGatewaySigner(command.nodes, proxySigner);
          const singleAddress = command.keyPolicy !== KeyPolicy.Hardware && !isHdKeyProvider(options.keys);
          const nftIndexer = planNftIndexer(command, { singleAddress, signer: proxySigner });
          return nftIndexer === undefined ? plan : { ...plan, params: { ...(plan.params as EvmPlanParams), nftIndexer } };
        }
        case CommandKind.Enable:
          return planLegacyEvm(command, context);
        default:
          throw new Error(`the EVM family does not plan ${command.kind} commands`); // a routing bug
      }
    },

    async activate(plan: ActivationPlan, signal: AbortSignal): Promise<ActivatedCoin> {
      // The activation's sockets become the coin's; if it fails or is cancelled, they close.
      const sockets = new WsPool();
      try {
        const coin = await (plan.via === ActivationVia.Enable ? activateLegacyEvm(plan, signal, chainDeps, sockets) : activatePlatform(plan, signal, sockets));
        signal.throwIfAborted();
        // A passive platform being re-activated is replaced by this coin: its sockets go.
        socketsOf.get(plan.ticker)?.close();
        socketsOf.set(plan.ticker, sockets);
        return coin;
      } catch (error) {
        sockets.close();
        throw error;
      }
    },

    async balance(coin: ActivatedCoin, ticker: string, signal: AbortSignal): Promise<Balance> {
      const connection = coin.connection as EvmConnection;
      // An ERC20 enabled on its own (legacy `enable`) is a coin whose balance is its contract's.
      const token = connection.token;
      const tokens = token === undefined ? tokensForBalance(coin, ticker) : [token];
      const read = await withNodes(connection, signal, (provider) => readAccount(provider, coin.address, tokens, true));
      return token === undefined ? balanceFromRead(coin, ticker, read) : { spendable: read.tokens[0]!.balance!, unspendable: 0n };
    },

    release(coin: ActivatedCoin): void {
      const { sockets } = coin.connection as EvmConnection;
      sockets.close();
      if (socketsOf.get(coin.ticker) === sockets) socketsOf.delete(coin.ticker);
    },

    balanceWatch: (coin: ActivatedCoin) => evmCoinWatch(coin, withNodes),

    // Withdrawals and broadcasts (issue 25), with this family's one nonce book.
    withdraw: createEvmWithdraw({ withNodes, clock: options.clock }),

    gasPriceFeed(coin: ActivatedCoin) {
      return gasPriceFeed((coin.connection as EvmConnection).gasPrice, chainDeps);
    },

    // `enable_erc20`: a token reads at its platform's address through its platform's nodes and sockets.
    tokens: {
      rule: ERC20_RULE,
      nodes: (platform) => (platform.connection as EvmConnection).nodes,
      async read(platform, token, signal) {
        const connection = platform.connection as EvmConnection;
        const read = await withNodes(connection, signal, (provider) => readAccount(provider, platform.address, [tokenToRead(token)], true));
        return tokenFromRead(token, read);
      },
    },
  };
}

