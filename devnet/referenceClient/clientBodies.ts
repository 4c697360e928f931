/**
 * The params the reference's client sends, key for key and in its key order (docs/compatibility.md
 * §19): built from what its coins config gives (nodes, contracts, confirmations), with its
 * hard-coded values.
 */

/** An EVM or TRON node as the SDK sends it: `url` and `gui_auth`, nothing else. */
export interface ClientNode {
  readonly url: string;
  readonly gui_auth: boolean;
}

export interface EvmPlatformConfig {
  readonly ticker: string;
  readonly nodes: readonly ClientNode[];
  readonly swapContract?: string;
  readonly fallbackSwapContract?: string;
  /** The coins config's `required_confirmations`, sent when it has one. */
  readonly requiredConfirmations?: number;
  /** TRX only: the config's `mm2`, sent when present. */
  readonly mm2?: number;
}

const SOFTWARE_POLICY = { type: 'ContextPrivKey' } as const;

/** `enable_eth_with_tokens` for an EVM platform or TRX with its tokens (every token at 3 confirmations). */
export function ethWithTokensParams(platform: EvmPlatformConfig, tokens: readonly string[]): Record<string, unknown> {
  return {
    ...(platform.requiredConfirmations === undefined ? {} : { required_confirmations: platform.requiredConfirmations }),
    requires_notarization: false,
    priv_key_policy: SOFTWARE_POLICY,
    nodes: platform.nodes,
    ...(platform.swapContract === undefined ? {} : { swap_contract_address: platform.swapContract, fallback_swap_contract: platform.fallbackSwapContract }),
    erc20_tokens_requests: tokens.map((ticker) => ({ ticker, required_confirmations: 3 })),
    tx_history: false,
    ...(platform.mm2 === undefined ? {} : { mm2: platform.mm2 }),
    ticker: platform.ticker,
    get_balances: true,
  };
}

/** `task::enable_eth::init` of a Trezor wallet: the same params, the Trezor policy, no `get_balances`. */
export function trezorEthInitParams(platform: EvmPlatformConfig, tokens: readonly string[]): Record<string, unknown> {
  const { get_balances: _, ticker, ...rest } = ethWithTokensParams(platform, tokens);
  return { ticker, ...rest, priv_key_policy: { type: 'Trezor' } };
}

/** `enable_erc20` for a token of an active platform: the token's config's nodes and contracts. */
export function enableErc20Params(ticker: string, platform: EvmPlatformConfig): Record<string, unknown> {
  return {
    ticker,
    activation_params: {
      requires_notarization: false,
      priv_key_policy: SOFTWARE_POLICY,
      nodes: platform.nodes,
      ...(platform.swapContract === undefined ? {} : { swap_contract_address: platform.swapContract, fallback_swap_contract: platform.fallbackSwapContract }),
    },
  };
}

/** An Electrum server as the SDK sends it. */
export interface ClientElectrum {
  readonly url: string;
  readonly protocol: 'TCP' | 'SSL' | 'WSS';
  readonly disable_cert_verification: boolean;
}

export interface UtxoConfig {
  readonly ticker: string;
  readonly servers: readonly ClientElectrum[];
  readonly requiredConfirmations?: number;
  /** Copied from the coins config when present. */
  readonly passthrough?: Readonly<Record<string, number>>;
}

/** `task::enable_utxo::init`: HD fields for every wallet, `tx_history` on, `max_connected` twice. */
export function utxoInitParams(coin: UtxoConfig, trezor = false): Record<string, unknown> {
  return {
    ticker: coin.ticker,
    activation_params: {
      ...(coin.requiredConfirmations === undefined ? {} : { required_confirmations: coin.requiredConfirmations }),
      requires_notarization: false,
      priv_key_policy: trezor ? 'Trezor' : 'ContextPrivKey',
      min_addresses_number: 1,
      scan_policy: trezor ? 'scan' : 'scan_if_new_wallet',
      gap_limit: 20,
      mode: { rpc: 'Electrum', rpc_data: { servers: coin.servers, max_connected: 1 } },
      tx_history: true,
      ...coin.passthrough,
      max_connected: 1,
    },
  };
}

/** `task::enable_qtum::init`: no `tx_history`, no HD fields, no top-level `max_connected`. */
export function qtumInitParams(coin: UtxoConfig): Record<string, unknown> {
  return {
    ticker: coin.ticker,
    activation_params: {
      ...(coin.requiredConfirmations === undefined ? {} : { required_confirmations: coin.requiredConfirmations }),
      requires_notarization: false,
      priv_key_policy: 'ContextPrivKey',
      mode: { rpc: 'Electrum', rpc_data: { servers: coin.servers, max_connected: 1 } },
    },
  };
}

/** A task status poll: always `forget_if_finished: false`, except QTUM's, which leaves its default (true). */
export function taskStatusParams(taskId: number, forgetIfFinished = false): Record<string, unknown> {
  return { task_id: taskId, forget_if_finished: forgetIfFinished };
}
