/**
 * Wire params of a withdrawal → the domain command (docs/compatibility.md §23). Each fee type
 * takes its own fields; a field of another type, a missing one, or a field this service cannot
 * honour (`broadcast: true`, `ibc_source_channel`) is refused naming it, never dropped.
 */
import type { Static } from '@sinclair/typebox';
import { invalidRequest } from '../../spec/errors.ts';
import { WireFeeType, type WithdrawFeeParam, type WithdrawParams, type WithdrawFrom } from '../../spec/withdraw.ts';
import type { FeeRequest, WithdrawCommand } from '../../actors/withdrawCommand.ts';

/** The fields each fee type takes (besides `type`). */
const FEE_FIELDS: Record<string, readonly (keyof WithdrawFeeParam)[]> = {
  UtxoFixed: ['amount'],
  UtxoPerKbyte: ['amount'],
  EthGas: ['gas_price', 'gas'],
  EthGasEip1559: ['max_fee_per_gas', 'max_priority_fee_per_gas', 'gas_option', 'gas'],
  Qrc20Gas: ['gas_limit', 'gas_price'],
  CosmosGas: ['gas_limit', 'gas_price'],
};
const ALL_FEE_FIELDS = ['amount', 'gas', 'gas_price', 'gas_limit', 'max_fee_per_gas', 'max_priority_fee_per_gas', 'gas_option', 'priority'] as const;

/** A decimal given as a JSON number must be plain (`0.1`, not `1e-7`): exact amounts only. */
function decimalText(field: string, value: string | number): string {
  const text = typeof value === 'number' ? String(value) : value;
  if (!/^\d+(\.\d+)?$/.test(text)) throw invalidRequest(`${field}: ${text} is not a plain decimal; give it as a string such as "0.0001"`);
  return text;
}

function required<T>(field: string, value: T | undefined, type: string): T {
  if (value === undefined) throw invalidRequest(`params.fee.${field}: required with fee type ${type}`);
  return value;
}

/** The fee of a request (absent: the family estimates). */
export function feeRequestOf(fee: WithdrawFeeParam | undefined): FeeRequest {
  if (fee === undefined) return { kind: 'Auto' };
  if (fee.type === WireFeeType.UtxoPriority) {
    throw invalidRequest('params.fee.type: UtxoPriority is not a withdraw fee type of the reference (spec 2.4 lists it; its main branch does not have it); use UtxoFixed or UtxoPerKbyte');
  }
  const allowed = FEE_FIELDS[fee.type]!;
  for (const field of ALL_FEE_FIELDS) {
    if (fee[field] !== undefined && !allowed.includes(field)) throw invalidRequest(`params.fee.${field}: not a field of fee type ${fee.type} (it takes ${allowed.join(', ')})`);
  }
  switch (fee.type) {
    case WireFeeType.UtxoFixed:
    case WireFeeType.UtxoPerKbyte:
      return { kind: fee.type, amount: decimalText('params.fee.amount', required('amount', fee.amount, fee.type)) };
    case WireFeeType.EthGas:
      return { kind: 'EthGas', gasPriceGwei: decimalText('params.fee.gas_price', required('gas_price', fee.gas_price, fee.type)), gas: required('gas', fee.gas, fee.type) };
    case WireFeeType.EthGasEip1559: {
      const option = fee.gas_option;
      if (option?.type === 'Set' && option.gas === undefined) throw invalidRequest('params.fee.gas_option.gas: required with {"type":"Set"}');
      if (option?.type === 'Calc' && option.gas !== undefined) throw invalidRequest('params.fee.gas_option.gas: {"type":"Calc"} estimates the gas; give no gas with it');
      if (option !== undefined && fee.gas !== undefined) throw invalidRequest('params.fee.gas: give the gas limit either as gas or in gas_option, not both');
      return {
        kind: 'EthGasEip1559',
        maxFeePerGasGwei: decimalText('params.fee.max_fee_per_gas', required('max_fee_per_gas', fee.max_fee_per_gas, fee.type)),
        maxPriorityFeePerGasGwei: decimalText('params.fee.max_priority_fee_per_gas', required('max_priority_fee_per_gas', fee.max_priority_fee_per_gas, fee.type)),
        gas: option?.gas ?? fee.gas,
      };
    }
    case WireFeeType.Qrc20Gas:
      return { kind: 'Qrc20Gas', gasLimit: required('gas_limit', fee.gas_limit, fee.type), gasPrice: decimalText('params.fee.gas_price', required('gas_price', fee.gas_price, fee.type)) };
    default:
      return { kind: 'CosmosGas' };
  }
}

function fromOf(from: Static<typeof WithdrawParams>['from']): WithdrawFrom | undefined {
  if (from === undefined) return undefined;
  if ('derivation_path' in from) return { derivationPath: from.derivation_path };
  return { accountId: from.account_id, chain: from.chain, addressId: from.address_id };
}

/** The domain command of `withdraw` / `task::withdraw::init` params. */
export function withdrawCommandOf(params: WithdrawParams): WithdrawCommand {
  if (params.broadcast === true) {
    throw invalidRequest('params.broadcast: this service never broadcasts from withdraw (the reference honours it only for remote wallets); send the tx_hex with send_raw_transaction');
  }
  if (params.ibc_source_channel !== undefined) throw invalidRequest('params.ibc_source_channel: an IBC channel applies to Tendermint coins, which this service does not withdraw');
  if (params.max && params.amount !== undefined) throw invalidRequest('params.amount: give either an amount or max: true, not both');
  const from = fromOf(params.from);
  return {
    ticker: params.coin,
    to: params.to,
    amount: params.amount === undefined ? undefined : decimalText('params.amount', params.amount),
    max: params.max,
    fee: feeRequestOf(params.fee),
    ...(from === undefined ? {} : { from }),
    ...(params.memo === undefined ? {} : { memo: params.memo }),
    ...(params.expiration_seconds === undefined ? {} : { expirationSeconds: params.expiration_seconds }),
  };
}
