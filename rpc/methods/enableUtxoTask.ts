import { enableUtxoTaskInitParams, REPEATED_COIN_FIELDS, type EnableUtxoTaskInitParams } from '../../spec/enableUtxoTask.ts';
import { invalidRequest } from '../../spec/errors.ts';
import { PolicyType, readPrivKeyPolicy } from '../../spec/privKeyPolicy.ts';
import { TaskKind } from '../../spec/taskKind.ts';
import { WireNames } from '../../spec/wireNames.ts';
import { CommandKind, type StandaloneActivationCommand, type UtxoModeSpec } from '../../actors/ports/chainFamily.ts';
import type { ActivationTasks } from '../../actors/activationTasks.ts';
import type { ActivationService } from '../../actors/activationService.ts';
import { ActivationVia } from '../../machines/activation.types.ts';
import { toHdRequest, toSettingsRequest } from './enableEthWithTokens.ts';
import { toUtxoMergeSpec } from './legacyElectrum.ts';
import { taskMethods } from './taskMethods.ts';

/** `activation_params.mode` in domain form. */
function toMode(mode: EnableUtxoTaskInitParams['activation_params']['mode']): UtxoModeSpec {
  if (mode.rpc === 'Native') return { rpc: 'Native' };
  const { servers, min_connected, max_connected } = mode.rpc_data;
  return {
    rpc: 'Electrum',
    servers: servers.map((s) => ({ url: s.url, protocol: s.protocol, ...(s.disable_cert_verification ? { disableCertVerification: true } : {}) })),
    ...(min_connected === undefined ? {} : { minConnected: min_connected }),
    ...(max_connected === undefined ? {} : { maxConnected: max_connected }),
  };
}

/** Wire params → domain command, for `task::enable_utxo` or `task::enable_qtum` (`via`). */
export function toStandaloneCommand(params: EnableUtxoTaskInitParams, via: ActivationVia): StandaloneActivationCommand {
  const a = params.activation_params;
  // Every name clients send (`Trezor`, …) is read as the spec's (docs/compatibility.md §17).
  const policy = readPrivKeyPolicy(a.priv_key_policy, 'params.activation_params.priv_key_policy');
  if (policy.type === PolicyType.BrowserWallet) {
    throw invalidRequest(`params.activation_params.priv_key_policy: ${policy.spoken} is only available on WebAssembly builds`);
  }
  return {
    kind: CommandKind.Standalone,
    ticker: params.ticker,
    via,
    mode: toMode(a.mode),
    keyPolicy: policy.type,
    hd: toHdRequest(a),
    ...toSettingsRequest(a),
    ...(a.address_format === undefined ? {} : { addressFormat: a.address_format }),
    ...toUtxoMergeSpec(a.utxo_merge_params),
    ...(a.max_connected === undefined ? {} : { repeatedMaxConnected: a.max_connected }),
    repeatedCoinFields: REPEATED_COIN_FIELDS.flatMap((name) => (a[name] === undefined ? [] : [{ name, value: a[name] }])),
  };
}

/**
 * `task::enable_utxo::*` (UTXO coins) and `task::enable_qtum::*` (QTUM): one `init` schema, the
 * reference's `UtxoActivationParams` for both; each kind activates its own protocol.
 */
export function enableUtxoTaskMethods(tasks: ActivationTasks, service: Pick<ActivationService, 'assertCanActivate'>, names: WireNames = WireNames.Neutral) {
  const kinds = [
    { kind: TaskKind.EnableUtxo, via: ActivationVia.EnableUtxoTask },
    { kind: TaskKind.EnableQtum, via: ActivationVia.EnableQtumTask },
  ] as const;
  return Object.assign(
    {},
    ...kinds.map(({ kind, via }) =>
      taskMethods(tasks, service, names, {
        kind,
        via,
        params: enableUtxoTaskInitParams,
        toCommand: (params) => toStandaloneCommand(params, via),
        clientId: (params) => params.client_id,
      }),
    ),
  ) as ReturnType<typeof taskMethods>;
}
