/**
 * Everything a TRON withdrawal needs from one node, in as few round trips as the data allow: the
 * block, the sender's resources and TRX balance, the chain prices and either the destination
 * account (TRX) or the token balance and the transfer's energy (TRC20) all go out at once. Only a
 * TRC20 `max` needs a second trip: its energy estimate needs the token balance as the amount.
 */
import { evmToTronBase58 } from '../../keys/tronAddress.ts';
import type { TronHttp, TronJson } from '../tronHttp.ts';
import type { TronChainPrices, TronResources } from './tronFee.ts';
import { accountBalance } from '../tronAccountReader.ts';
import { accountExists, accountResources, chainPrices, taposBlock, tokenBalance, transferEnergy, type TaposBlock } from './tronNodeAnswers.ts';
import { trc20TransferParameter } from './tronTransfer.ts';

/** What to read: EVM-form addresses; `contract` (base58) for a TRC20. */
export interface TronWithdrawalQuery {
  readonly from: string;
  readonly to: string;
  readonly amount: bigint | 'max';
  readonly contract?: string;
}

export interface TronWithdrawalReads {
  readonly block: TaposBlock;
  readonly resources: TronResources;
  readonly prices: TronChainPrices;
  /** The sender's TRX, in SUN. */
  readonly trxBalance: bigint;
  /** TRX only: whether the destination account exists. */
  readonly destinationExists?: boolean;
  /** TRC20 only: the sender's token balance. */
  readonly tokenBalance?: bigint;
  /**
   * TRC20 only: the transfer's energy, read only when the token balance covers the amount (a
   * transfer beyond it reverts and has none; the balance check then answers instead).
   */
  readonly energyUsed?: bigint;
}

/** The reads of `query` from one node (a malformed answer throws `TronNodeError`: try the next). */
export async function readForWithdrawal(http: TronHttp, query: TronWithdrawalQuery, signal: AbortSignal): Promise<TronWithdrawalReads> {
  const owner = evmToTronBase58(query.from);
  const post = (path: string, body: Record<string, unknown>) => http.post(path, body, signal);
  const constantCall = (fn: string, parameter: string) =>
    post('/wallet/triggerconstantcontract', { owner_address: owner, contract_address: query.contract, function_selector: fn, parameter, visible: true });
  const estimate = (amount: bigint) => constantCall('transfer(address,uint256)', trc20TransferParameter(query.to, amount));

  const block = post('/wallet/getnowblock', {}).then(taposBlock);
  const resources = post('/wallet/getaccountresource', { address: owner, visible: true }).then(accountResources);
  const prices = post('/wallet/getchainparameters', {}).then(chainPrices);
  const sender = post('/wallet/getaccount', { address: owner, visible: true }).then(accountBalance);
  const token = query.contract === undefined ? undefined : constantCall('balanceOf(address)', query.from.slice(2).toLowerCase().padStart(64, '0')).then(tokenBalance);
  const destination = query.contract === undefined ? post('/wallet/getaccount', { address: evmToTronBase58(query.to), visible: true }).then(accountExists) : undefined;
  const earlyEstimate: Promise<TronJson> | undefined = query.contract !== undefined && query.amount !== 'max' ? estimate(query.amount) : undefined;
  // Settle every request before reading any, so none is left unobserved when one fails.
  await Promise.allSettled([block, resources, prices, sender, token, destination, earlyEstimate]);

  const reads = { block: await block, resources: await resources, prices: await prices, trxBalance: await sender };
  if (token === undefined) return { ...reads, destinationExists: (await destination)! };
  const balance = await token;
  const amount = query.amount === 'max' ? balance : query.amount;
  if (amount > balance || (query.amount === 'max' && balance === 0n)) return { ...reads, tokenBalance: balance };
  const energyUsed = transferEnergy(await (earlyEstimate ?? estimate(amount)));
  return { ...reads, tokenBalance: balance, energyUsed };
}
