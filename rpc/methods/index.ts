import type { ActivationService } from '../../actors/activationService.ts';
import type { ActivationTasks } from '../../actors/activationTasks.ts';
import type { CoinSettingsService } from '../../actors/coinSettingsService.ts';
import { coinSettingsMethods } from './coinSettings.ts';
import { enableEthTaskMethods } from './enableEthTask.ts';
import { enableUtxoTaskMethods } from './enableUtxoTask.ts';
import type { MethodTable } from '../methods.ts';
import { WireNames } from '../../spec/wireNames.ts';
import { disableCoinMethod, getEnabledCoinsLegacyMethod, getEnabledCoinsV2Method, myBalanceMethod } from './coinMethods.ts';
import { enableEthWithTokensMethod } from './enableEthWithTokens.ts';
import { enableErc20Method } from './enableErc20.ts';
import { legacyEnableMethod } from './legacyEnable.ts';
import { legacyElectrumMethod } from './legacyElectrum.ts';
import { nodeMethods, type NodeInfo, type ShutdownSignalStreams } from './nodeMethods.ts';
import { balanceStreamingMethods, type BalanceStreams } from './balanceStreaming.ts';
import { accountBalanceMethod } from './accountBalance.ts';
import { accountBalanceTaskMethods } from './accountBalanceTask.ts';
import { getNewAddressMethod, hdAddressTaskMethods } from './hdAddresses.ts';

/**
 * The service's method tables: `methods` by name, plus legacy forms of names that are also v2.
 * `wireNames`: the names task statuses are written in (MM2.json `wire_names`). @default neutral
 */
export function buildMethodTables(
  service: ActivationService,
  tasks: ActivationTasks,
  settings: CoinSettingsService,
  node: { readonly info: NodeInfo; readonly streams: ShutdownSignalStreams & BalanceStreams },
  wireNames: WireNames = WireNames.Neutral,
): { methods: MethodTable; legacyMethods: MethodTable } {
  return {
    methods: {
      ...enableEthTaskMethods(tasks, service, wireNames),
      ...enableUtxoTaskMethods(tasks, service, wireNames),
      enable_eth_with_tokens: enableEthWithTokensMethod(service),
      enable_erc20: enableErc20Method(service),
      get_enabled_coins: getEnabledCoinsV2Method(service),
      disable_coin: disableCoinMethod(service),
      my_balance: myBalanceMethod(service),
      account_balance: accountBalanceMethod(service),
      ...accountBalanceTaskMethods(tasks, wireNames),
      get_new_address: getNewAddressMethod(service),
      ...hdAddressTaskMethods(tasks, wireNames),
      enable: legacyEnableMethod(service),
      electrum: legacyElectrumMethod(service),
      ...coinSettingsMethods(settings),
      ...nodeMethods(node.info, node.streams),
      ...balanceStreamingMethods(service, node.streams),
    },
    legacyMethods: {
      get_enabled_coins: getEnabledCoinsLegacyMethod(service),
    },
  };
}
