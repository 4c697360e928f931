import type { ActivationService } from '../../actors/activationService.ts';
import type { ActivationTasks } from '../../actors/activationTasks.ts';
import type { CoinSettingsService } from '../../actors/coinSettingsService.ts';
import { coinSettingsMethods } from './coinSettings.ts';
import { enableEthTaskMethods } from './enableEthTask.ts';
import { enableUtxoTaskMethods } from './enableUtxoTask.ts';
import type { MethodTable } from '../methods.ts';
import { disableCoinMethod, getEnabledCoinsLegacyMethod, getEnabledCoinsV2Method, myBalanceMethod } from './coinMethods.ts';
import { enableEthWithTokensMethod } from './enableEthWithTokens.ts';
import { legacyEnableMethod } from './legacyEnable.ts';
import { legacyElectrumMethod } from './legacyElectrum.ts';

/** The service's method tables: `methods` by name, plus legacy forms of names that are also v2. */
export function buildMethodTables(
  service: ActivationService,
  tasks: ActivationTasks,
  settings: CoinSettingsService,
): { methods: MethodTable; legacyMethods: MethodTable } {
  return {
    methods: {
      ...enableEthTaskMethods(tasks, service),
      ...enableUtxoTaskMethods(tasks, service),
      enable_eth_with_tokens: enableEthWithTokensMethod(service),
      get_enabled_coins: getEnabledCoinsV2Method(service),
      disable_coin: disableCoinMethod(service),
      my_balance: myBalanceMethod(service),
      enable: legacyEnableMethod(service),
      electrum: legacyElectrumMethod(service),
      ...coinSettingsMethods(settings),
    },
    legacyMethods: {
      get_enabled_coins: getEnabledCoinsLegacyMethod(service),
    },
  };
}
