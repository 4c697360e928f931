/**
 * Unsigned TRX and TRC20 transfers (the reference's `mm2src/coins/eth/tron/tx_builder.rs`): the
 * reference block of TAPOS, the block's timestamp as the transaction's, and the expiry that
 * timestamp plus the window (default 60 s).
 */
import type { TaposBlock } from './tronNodeAnswers.ts';
import { TronContractType, transferContract, triggerSmartContract, type TronRawTransaction } from './tronProtobuf.ts';

/** The reference's `DEFAULT_TX_EXPIRATION_MS`: a signed transaction must reach a node within 60 s. */
export const DEFAULT_EXPIRATION_SECONDS = 60n;

/** `transfer(address,uint256)`'s selector. */
const TRANSFER_SELECTOR = 'a9059cbb';

/** The 21-byte TRON form (`41` ‖ 20 bytes) of an EVM-form address. */
export function tronAddressBytes(evmAddress: string): Uint8Array {
  return Buffer.from(`41${evmAddress.slice(2)}`, 'hex');
}

/** TAPOS fields: bytes 6..8 of the block number, bytes 8..16 of the block id. */
function tapos(block: TaposBlock, expirationSeconds: bigint) {
  const number = Buffer.alloc(8);
  number.writeBigUInt64BE(block.number);
  return {
    refBlockBytes: number.subarray(6, 8),
    refBlockHash: block.id.subarray(8, 16),
    timestamp: block.timestamp,
    expiration: block.timestamp + expirationSeconds * 1000n,
  };
}

/** A native transfer of `amountSun` from `from` to `to` (EVM-form addresses). */
export function trxTransfer(from: string, to: string, amountSun: bigint, block: TaposBlock, expirationSeconds = DEFAULT_EXPIRATION_SECONDS): TronRawTransaction {
  return {
    ...tapos(block, expirationSeconds),
    contract: { type: TronContractType.TransferContract, value: transferContract(tronAddressBytes(from), tronAddressBytes(to), amountSun) },
    feeLimit: 0n,
  };
}

/** ABI arguments of `transfer(to, amount)` (hex, no selector): what `triggerconstantcontract` takes. */
export function trc20TransferParameter(to: string, amount: bigint): string {
  return to.slice(2).toLowerCase().padStart(64, '0') + amount.toString(16).padStart(64, '0');
}

/** A TRC20 `transfer(to, amount)` at `contract`, burning at most `feeLimitSun` for energy. */
export function trc20Transfer(from: string, contract: string, to: string, amount: bigint, feeLimitSun: bigint, block: TaposBlock, expirationSeconds = DEFAULT_EXPIRATION_SECONDS): TronRawTransaction {
  const data = Buffer.from(TRANSFER_SELECTOR + trc20TransferParameter(to, amount), 'hex');
  return {
    ...tapos(block, expirationSeconds),
    contract: { type: TronContractType.TriggerSmartContract, value: triggerSmartContract(tronAddressBytes(from), tronAddressBytes(contract), data) },
    feeLimit: feeLimitSun,
  };
}
