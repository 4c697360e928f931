/**
 * `my_tx_history` in both forms (docs/compatibility.md §22; spec 4.1 `tx_history`, spec 2.3 history
 * filter) and `stream::tx_history::enable`. Both forms filter by the target; v2 answers the
 * reference's `MyTxHistoryErrorV2`, and the legacy form, as the reference, answers a coin without
 * history with `NotEnabled` and an empty list.
 */
import { ActivationError, ErrorType, errorSentence } from '../../spec/errors.ts';
import {
  enableTxHistoryStreamingParams,
  myTxHistoryLegacyParams,
  myTxHistoryV2Params,
  type HistoryPaging,
  type HistoryTarget,
} from '../../spec/txHistory.ts';
import { confirmationsAt, historyPage, totalPages, type PageRequest } from '../../actors/history/historyPage.ts';
import type { HistoryAddress } from '../../actors/history/historyPort.ts';
import type { HistoryRead, TxHistoryService } from '../../actors/history/txHistoryService.ts';
import { defineMethod, RpcVersion, type MethodDef, type MethodTable } from '../methods.ts';
import { renderSyncStatus, renderTransaction } from './txHistoryRender.ts';

type Loaded = Extract<HistoryRead, { kind: 'history' }>;
const NOT_ENABLED = { state: 'NotEnabled' } as const;

/**
 * Legacy `my_tx_history`: `{"result":{transactions, limit, skipped, from_id, total, current_block,
 * sync_status, page_number, total_pages}}`. A `target` filters as in v2 (the reference ignores it
 * here; its client sends one only for coins it reads in this form, which have no history).
 */
export function myTxHistoryLegacyMethod(history: TxHistoryService): MethodDef {
  return defineMethod({
    version: RpcVersion.Legacy,
    params: myTxHistoryLegacyParams,
    async handle({ coin, from_id, max, limit, page_number, target }) {
      const read = await history.read(coin);
      if (read.kind === 'inactive') throw errorSentence(ErrorType.NoSuchCoin, `No such coin: ${coin}`);
      const loaded: Pick<Loaded, 'records' | 'currentBlock' | 'status' | 'decimals'> = read.kind === 'history' ? read : { records: [], currentBlock: read.currentBlock, status: NOT_ENABLED, decimals: 8 };
      // The reference's client's `{"type":"account_id","id":N}` is account N.
      const filter = target === undefined || read.kind !== 'history' ? undefined : targetAddresses('id' in target ? { type: 'account_id', account_id: target.id } : target, read);
      const fromId = from_id ?? undefined;
      const request: PageRequest = fromId !== undefined ? { fromId } : { pageNumber: page_number ?? 1 };
      const pageLimit = max ? loaded.records.length : limit;
      const page = historyPage(loaded.records, request, pageLimit, filter);
      // The reference's legacy form refuses an unknown from_id (its v2 form answers an empty page).
      if (!page.fromIdFound) throw errorSentence(ErrorType.InvalidRequest, `from_id ${fromId!.toLowerCase()} is not found`);
      return {
        result: {
          transactions: page.records.map((r) => renderTransaction(r, coin, loaded.decimals, confirmationsAt(r, loaded.currentBlock))),
          limit: pageLimit,
          skipped: page.skipped,
          from_id: from_id ?? null,
          total: page.total,
          current_block: loaded.currentBlock,
          sync_status: renderSyncStatus(loaded.status),
          page_number: page_number ?? null,
          total_pages: totalPages(page.total, limit),
        },
      };
    },
  });
}

/** v2 `my_tx_history`: the reference's `MyTxHistoryResponseV2`. */
export function myTxHistoryV2Method(history: TxHistoryService): MethodDef {
  return defineMethod({
    version: RpcVersion.V2,
    params: myTxHistoryV2Params,
    async handle({ coin, limit, paging_options, target }) {
      const read = await history.read(coin);
      if (read.kind === 'inactive') throw new ActivationError(ErrorType.CoinIsNotActive, `${coin} is not activated`, coin);
      if (read.kind === 'unsupported') throw new ActivationError(ErrorType.NotSupportedFor, `my_tx_history is not supported for ${coin}`, coin);
      if (read.kind === 'notInitialized') {
        throw errorSentence(ErrorType.StorageIsNotInitialized, `Storage is not initialized for ${coin}: activate it with tx_history true`);
      }
      const paging: HistoryPaging = paging_options ?? { PageNumber: 1 };
      const echoed: HistoryTarget = target ?? { type: 'iguana' };
      const addresses = targetAddresses(echoed, read);
      const request: PageRequest = 'FromId' in paging ? { fromId: paging.FromId } : { pageNumber: paging.PageNumber };
      const page = historyPage(read.records, request, limit, addresses);
      return {
        coin,
        target: echoed,
        current_block: read.currentBlock,
        transactions: page.records.map((r) => renderTransaction(r, coin, read.decimals, confirmationsAt(r, read.currentBlock))),
        sync_status: renderSyncStatus(read.status),
        limit,
        skipped: page.skipped,
        total: page.total,
        total_pages: totalPages(page.total, limit),
        paging_options: paging,
      };
    },
  });
}

/**
 * The addresses a target selects, as the reference's `get_tx_history_filters`: `iguana` on a coin
 * without an HD account (its address); an account's known addresses; one activated address.
 */
function targetAddresses(target: HistoryTarget, read: Loaded): Set<string> {
  const invalid = (message: string) => errorSentence(ErrorType.InvalidTarget, message);
  if (!read.hd) {
    if (target.type !== 'iguana') throw invalid(`Expected "Iguana" target, found: ${target.type}`);
    return new Set(read.addresses.map((a) => a.address));
  }
  if (target.type === 'iguana') throw invalid('Expected an HD account/address target, found: iguana');
  const inAccount = read.addresses.filter((a): a is Required<HistoryAddress> => a.hd?.accountId === target.account_id);
  if (inAccount.length === 0) throw invalid(`No such account_id=${target.account_id}`);
  if (target.type === 'account_id') return new Set(inAccount.map((a) => a.address));
  const one = inAccount.find((a) => a.hd.chain === target.chain && a.hd.addressId === target.address_id);
  if (one === undefined) throw invalid(`'${target.chain}:${target.address_id}' address is not activated`);
  return new Set([one.address]);
}

/** The transaction history streamer and its refusals (docs/compatibility.md §22). */
export interface TxHistoryStreams {
  enableTxHistory(clientId: number, coin: string): string;
}

export function txHistoryMethods(history: TxHistoryService, streams: TxHistoryStreams): { methods: MethodTable; legacyMethods: MethodTable } {
  return {
    methods: {
      my_tx_history: myTxHistoryV2Method(history),
      'stream::tx_history::enable': defineMethod({
        version: RpcVersion.V2,
        params: enableTxHistoryStreamingParams,
        handle: ({ client_id, coin }) => {
          const supported = history.supports(coin);
          if (supported === undefined) throw new ActivationError(ErrorType.CoinNotFound, `${coin} is not enabled`);
          if (!supported) throw new ActivationError(ErrorType.CoinNotSupported, `the history of ${coin} is not loaded (only UTXO and QTUM coins, over Electrum or a native daemon)`);
          return { streamer_id: streams.enableTxHistory(client_id, coin) };
        },
      }),
    },
    legacyMethods: { my_tx_history: myTxHistoryLegacyMethod(history) },
  };
}
