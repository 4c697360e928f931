/**
 * The EVM family's withdraw capability (issue 25, docs/compatibility.md §23): ETH-protocol coins
 * and ERC20 tokens. `prepare` checks the request, reads the node (one batch, see
 * `evmWithdrawReads.ts`), checks the balances, takes the nonce from the book, signs and answers;
 * it never broadcasts. `broadcast` hands a signed transaction to the coin's nodes and books its nonce.
 */
import { Transaction, getAddress } from 'ethers';
import { ActivationError, ErrorType, errorSentence, invalidRequest } from '../../../spec/errors.ts';
import { formatAmount } from '../../../spec/amount.ts';
import type { PreparedWithdrawal, WithdrawOrder } from '../../../spec/withdraw.ts';
import type { ActiveCoinView, BroadcastOutcome, WithdrawCapability, WithdrawSigner } from '../../../actors/ports/withdraw.ts';
import type { EvmConnection, WithEvmNodes } from '../evmNodes.ts';
import { isNodeFailure, rpcMessage } from '../evmCalls.ts';
import { urlLabel } from '../../../kernel/urlLabel.ts';
import type { Clock } from '../../../kernel/clock.ts';
import { checkEvmFee, checkEvmFields, checkRecipient } from './evmWithdrawChecks.ts';
import { estimatedGas, gasOf, TRANSFER_GAS } from './evmFee.ts';
import { estimateGas, readForWithdrawal, type EstimateCall } from './evmWithdrawReads.ts';
import { erc20TransferData, signEvmTransaction } from './evmTransaction.ts';
import { NonceBook } from './nonceBook.ts';

export interface EvmWithdrawDeps {
  readonly withNodes: WithEvmNodes;
  readonly clock: Clock;
  /** @default a book of this capability's own */
  readonly book?: NonceBook;
}

const notSufficient = (coin: string, available: bigint, required: bigint, decimals: number) =>
  new ActivationError(ErrorType.NotSufficientBalance, `Not enough ${coin} to withdraw: available ${formatAmount(available, decimals)}, required ${formatAmount(required, decimals)}`, {
    coin,
    available: formatAmount(available, decimals),
    required: formatAmount(required, decimals),
  });

/** The token of a withdrawal: on its platform, or an ERC20 enabled on its own (legacy `enable`). */
function tokenOf(coin: ActiveCoinView): { ticker: string; contractAddress: string } | undefined {
  if (coin.token !== undefined) return { ticker: coin.token.ticker, contractAddress: coin.token.contractAddress };
  const own = (coin.platform.connection as EvmConnection).token;
  return own === undefined ? undefined : { ticker: own.ticker, contractAddress: own.contractAddress };
}

export function createEvmWithdraw(deps: EvmWithdrawDeps): WithdrawCapability {
  const book = deps.book ?? new NonceBook();

  async function prepare(coin: ActiveCoinView, order: WithdrawOrder, signer: WithdrawSigner, signal: AbortSignal): Promise<PreparedWithdrawal> {
    const to = checkRecipient(order.to);
    const policy = checkEvmFee(order, coin.entry);
    checkEvmFields(order);
    const connection = coin.platform.connection as EvmConnection;
    const from = getAddress(order.sender.address);
    const token = tokenOf(coin);
    // A token standing alone (legacy `enable`) pays gas in its platform's coin, named by its entry.
    const gasCoin = token !== undefined && coin.token === undefined ? platformTickerOf(coin) : coin.platform.ticker;
    // Gas is paid in the chain's native coin: 18 decimals on every EVM chain (a lone token's own decimals are not it).
    const gasDecimals = coin.token === undefined && token !== undefined ? 18 : coin.platform.decimals;
    const givenGas = policy.kind === 'Auto' ? undefined : policy.gas;
    const callFor = (amount: bigint): EstimateCall =>
      token === undefined ? { to, value: amount, data: '0x' } : { to: token.contractAddress, value: 0n, data: erc20TransferData(to, amount) };
    const needsEstimate = givenGas === undefined;
    const read = await deps.withNodes(connection, signal, (provider) =>
      readForWithdrawal(provider, {
        from,
        ...(token === undefined ? {} : { token }),
        fees: policy.kind === 'Auto',
        ...(needsEstimate && order.amount !== 'max' ? { estimate: callFor(order.amount) } : {}),
      }),
    );
    const gas = gasOf(policy, read.gasPrice, read.baseFee);
    const spendable = token === undefined ? read.balance : read.tokenBalance!;

    // The amount, checked against what the sender holds before any estimate is trusted.
    let amount: bigint;
    let gasLimit = gas.gas;
    if (order.amount === 'max') {
      if (token !== undefined && spendable === 0n) throw new ActivationError(ErrorType.ZeroBalanceToWithdrawMax, 'Balance is zero');
      if (gasLimit === undefined) {
        const probe = token === undefined ? spendable - TRANSFER_GAS * gas.pricePerGas : spendable;
        const estimate = await deps.withNodes(connection, signal, (provider) => estimateGas(provider, from, callFor(probe > 0n ? probe : 0n)));
        gasLimit = estimatedGas(estimate, probe > 0n ? probe : 0n, gas.pricePerGas, gasDecimals);
      }
      const fee = gasLimit * gas.pricePerGas;
      if (token === undefined && spendable <= fee) {
        throw new ActivationError(ErrorType.AmountTooLow, `The balance ${formatAmount(spendable, coin.decimals)} ${coin.ticker} does not cover the fee`, {
          amount: formatAmount(spendable, coin.decimals),
          threshold: formatAmount(fee, coin.decimals),
        });
      }
      amount = token === undefined ? spendable - fee : spendable;
    } else {
      amount = order.amount;
      if (amount > spendable) throw notSufficient(coin.ticker, spendable, amount, coin.decimals);
      gasLimit ??= estimatedGas(read.estimate, token === undefined ? amount : 0n, gas.pricePerGas, gasDecimals);
    }
    const totalFee = gasLimit * gas.pricePerGas;
    // The fee is paid in the platform coin: for a token, the gas coin is what falls short.
    const gasNeed = token === undefined ? amount + totalFee : totalFee;
    if (gasNeed > read.balance) throw notSufficient(gasCoin, read.balance, gasNeed, gasDecimals);

    const nonce = book.next(connection.chainId, from, read.pendingCount, read.minedCount);
    const call = callFor(amount);
    const tx = { chainId: connection.chainId, nonce, gasLimit, to: call.to, value: call.value, data: call.data.slice(2), fee: gas.fee };
    const { hex, hash } = await signEvmTransaction(tx, from, signer, signal);
    const toSelf = getAddress(to) === from;
    const spent = token === undefined ? amount + totalFee : amount;
    const received = toSelf ? amount : 0n;
    return {
      txHex: hex,
      txHash: hash,
      from: [from],
      to: [to],
      totalAmount: amount,
      spentByMe: spent,
      receivedByMe: received,
      myBalanceChange: received - spent,
      feeDetails: {
        type: 'Eth',
        coin: gasCoin,
        decimals: gasDecimals,
        gas: gasLimit,
        gasPriceWei: gas.pricePerGas,
        ...(gas.fee.type === 'eip1559' ? { maxFeePerGasWei: gas.fee.maxFeePerGas, maxPriorityFeePerGasWei: gas.fee.maxPriorityFeePerGas } : {}),
        totalFee,
      },
      timestamp: Math.floor(deps.clock.now() / 1000),
      nonce,
    };
  }

  async function broadcast(coin: ActiveCoinView, txHex: string, signal: AbortSignal): Promise<BroadcastOutcome> {
    const connection = coin.platform.connection as EvmConnection;
    let tx: Transaction;
    try {
      tx = Transaction.from(`0x${txHex}`);
    } catch {
      throw invalidRequest('tx_hex: not an RLP-encoded EVM transaction');
    }
    if (tx.signature === null || tx.from === null) throw invalidRequest('tx_hex: the transaction is not signed');
    if (tx.chainId !== BigInt(connection.chainId)) throw invalidRequest(`tx_hex: the transaction is for chain ${tx.chainId}, ${coin.ticker} is on chain ${connection.chainId}`);
    const hash = tx.hash!.slice(2);
    const nonce = BigInt(tx.nonce);
    const other = book.usedBy(connection.chainId, tx.from, nonce, hash);
    if (other !== undefined) {
      throw new ActivationError(
        ErrorType.NonceAlreadyUsed,
        `tx_hex: nonce ${nonce} of ${tx.from} was already used by transaction ${other}, which this service broadcast; a broadcast transaction is never replaced silently: sign a new withdrawal`,
        { nonce: nonce.toString(), from: tx.from, tx_hash: other },
      );
    }
    const sent = await deps.withNodes(connection, signal, async (provider) => {
      const node = urlLabel(provider._getConnection().url);
      try {
        await provider.send('eth_sendRawTransaction', [`0x${txHex}`]);
        return { node };
      } catch (error) {
        if (isNodeFailure(error)) throw error;
        return { node, refused: rpcMessage(error) };
      }
    });
    if ('refused' in sent) throw errorSentence(ErrorType.Transport, `${sent.node} refused the transaction: ${sent.refused}`);
    book.record(connection.chainId, tx.from, nonce, hash);
    return { txHash: hash, node: sent.node, from: tx.from, nonce };
  }

  return { protocols: ['ETH', 'ERC20'], prepare, broadcast };
}

/** The platform of an ERC20 enabled on its own: its coins entry's `protocol_data.platform`. */
function platformTickerOf(coin: ActiveCoinView): string {
  const protocol = coin.entry.protocol as { protocol_data?: { platform?: unknown } } | undefined;
  const platform = protocol?.protocol_data?.platform;
  return typeof platform === 'string' ? platform : coin.ticker;
}
