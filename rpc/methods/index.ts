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
import { txHistoryMethods, type TxHistoryStreams } from './txHistory.ts';
import type { TxHistoryService } from '../../actors/history/txHistoryService.ts';
import type { WithdrawService } from '../../actors/withdrawService.ts';
import { sendRawTransactionMethod, withdrawMethods, withdrawTaskMethods } from './withdraw.ts';
import { getNewAddressMethod, hdAddressTaskMethods } from './hdAddresses.ts';

/**
 * The service's method tables: `methods` by name, plus legacy forms of names that are also v2.
 * `wireNames`: the names task statuses are written in (MM2.json `wire_names`). @default neutral
 * `history`: `my_tx_history` (both forms) and `stream::tx_history::enable` (issue 26).
 * `withdrawals`: `withdraw`, `task::withdraw::*`, `send_raw_transaction` (issue 25); absent: not served.
 */
export function buildMethodTables(
  service: ActivationService,
  tasks: ActivationTasks,
  settings: CoinSettingsService,
  node: { readonly info: NodeInfo; readonly streams: ShutdownSignalStreams & BalanceStreams },
  wireNames: WireNames = WireNames.Neutral,
  history?: { readonly service: TxHistoryService; readonly streams: TxHistoryStreams },
  withdrawals?: WithdrawService,
): { methods: MethodTable; legacyMethods: MethodTable } {
  const txHistory = history === undefined ? { methods: {}, legacyMethods: {} } : txHistoryMethods(history.service, history.streams);
  const withdraw = withdrawals === undefined ? undefined : withdrawMethods(withdrawals);
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
      ...txHistory.methods,
      ...(withdrawals === undefined
        ? {}
        : { withdraw: withdraw!.v2, ...withdrawTaskMethods(tasks, wireNames), send_raw_transaction: sendRawTransactionMethod(withdrawals) }),
    },
    legacyMethods: {
      get_enabled_coins: getEnabledCoinsLegacyMethod(service),
      ...txHistory.legacyMethods,
      ...(withdraw === undefined ? {} : { withdraw: withdraw.legacy }),
    },
  };
}
