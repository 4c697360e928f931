/**
 * The Qtum daemon double's UTXO side, enough for a QRC20 withdrawal: outputs a test funds
 * (`fund`), `listunspent` by address, and `sendrawtransaction`, which checks every input (known,
 * unspent, P2PKH with a signature that verifies over the legacy sighash for the key the output
 * pays), that the inputs cover the outputs and the gas of each contract call, then runs each
 * `OP_4 gas_limit gas_price data contract OP_CALL` output on the EVM as a transaction from the
 * first input's key (Qtum's sender), and keeps the transaction's P2PKH outputs as new unspents.
 * Refusals use qtumd's codes (-25 missing inputs, -26 rejected by rules, -22 decode failure).
 */
import { crypto as btcCrypto, opcodes, payments, script as btcScript, Transaction } from 'bitcoinjs-lib';
import { SigningKey, Signature, hexlify } from 'ethers';
import { decodeBase58Bytes } from '../../infra/keys/base58check.ts';
import { formatCoinAmount } from '../../infra/utxo/daemonAmounts.ts';
import { DaemonRpcError } from '../../infra/utxo/daemonRpc.ts';
import type { EvmRequest } from '../evm/inProcessEvm.ts';
import type { DaemonMethod } from './bitcoindHttp.ts';

const RPC = { deserialization: -22, verify: -25, rejected: -26, invalidParameter: -8 } as const;
const refuse = (code: number, message: string) => new DaemonRpcError(message, code, 'sendrawtransaction');

interface Output {
  readonly txid: string;
  readonly vout: number;
  readonly value: bigint;
  readonly script: Buffer;
}

/** A contract call the double ran: for tests to check what the chain saw. */
export interface ExecutedCall {
  readonly txid: string;
  readonly sender: string;
  readonly contract: string;
  readonly gasLimit: bigint;
  readonly gasPrice: bigint;
  readonly evmTxHash: string;
  readonly status: 'success' | 'reverted';
}

export interface QtumWallet {
  /** Adds an unspent output of `satoshis` paying `hash160` (P2PKH); returns its outpoint. */
  fund(hash160: Uint8Array, satoshis: bigint): { txid: string; vout: number };
  readonly calls: readonly ExecutedCall[];
  readonly methods: Record<string, DaemonMethod>;
}

const p2pkhHashOf = (script: Buffer) => (script.length === 25 && script[0] === opcodes.OP_DUP && script[1] === opcodes.OP_HASH160 ? script.subarray(3, 23) : undefined);

export function createQtumWallet(evm: EvmRequest): QtumWallet {
  const unspent = new Map<string, Output>();
  const calls: ExecutedCall[] = [];
  let funded = 0;
  const add = (output: Output) => unspent.set(`${output.txid}:${output.vout}`, output);

  async function send(hex: string): Promise<string> {
    let tx: Transaction;
    try {
      tx = Transaction.fromHex(hex);
    } catch {
      throw refuse(RPC.deserialization, 'TX decode failed');
    }
    const spent = tx.ins.map((input, index) => {
      const key = `${Buffer.from(input.hash).reverse().toString('hex')}:${input.index}`;
      const output = unspent.get(key);
      if (output === undefined) throw refuse(RPC.verify, 'bad-txns-inputs-missingorspent');
      return { key, output, pubkey: verifyInput(tx, index, output) };
    });
    const inputs = spent.reduce((sum, s) => sum + s.output.value, 0n);
    const outputs = tx.outs.reduce((sum, o) => sum + o.value, 0n);
    const contractCalls = tx.outs.map((o) => contractCall(Buffer.from(o.script))).filter((c) => c !== undefined);
    const gas = contractCalls.reduce((sum, c) => sum + c.gasLimit * c.gasPrice, 0n);
    if (inputs < outputs + gas) throw refuse(RPC.rejected, `bad-txns-fee-notenough (inputs ${inputs} < outputs ${outputs} + gas ${gas})`);
    const txid = tx.getId();
    const sender = `0x${Buffer.from(btcCrypto.hash160(spent[0]!.pubkey)).toString('hex')}`;
    for (const call of contractCalls) calls.push({ txid, sender, ...call, ...(await execute(evm, sender, call)) });
    for (const s of spent) unspent.delete(s.key);
    tx.outs.forEach((o, vout) => {
      if (o.value > 0n && p2pkhHashOf(Buffer.from(o.script))) add({ txid, vout, value: o.value, script: Buffer.from(o.script) });
    });
    return txid;
  }

  const listUnspent: DaemonMethod = {
    args: ['minconf', 'maxconf', 'addresses'],
    required: 0,
    help: 'listunspent ( minconf maxconf ["address",...] )\n',
    run: async ([, , addresses]) => {
      const wanted = Array.isArray(addresses) ? addresses.map((a) => hashOfAddress(String(a))) : undefined;
      return [...unspent.values()]
        .filter((o) => wanted === undefined || wanted.some((h) => h !== undefined && p2pkhHashOf(o.script)?.equals(h)))
        .map((o) => ({ txid: o.txid, vout: o.vout, scriptPubKey: o.script.toString('hex'), amount: Number(formatCoinAmount(o.value)), confirmations: 1, spendable: false, solvable: false, safe: true }));
    },
  };

  return {
    fund(hash160, satoshis) {
      const txid = Buffer.from(btcCrypto.sha256(Buffer.from(`funding ${++funded}`))).toString('hex');
      add({ txid, vout: 0, value: satoshis, script: Buffer.from(payments.p2pkh({ hash: Buffer.from(hash160) }).output!) });
      return { txid, vout: 0 };
    },
    calls,
    methods: {
      listunspent: listUnspent,
      sendrawtransaction: { args: ['hexstring', 'maxfeerate'], required: 1, help: 'sendrawtransaction "hexstring" ( maxfeerate )\n', run: async ([hex]) => send(String(hex)) },
    },
  };
}

/** The 20-byte hash of a Base58 P2PKH address of any prefix (the double serves any network). */
function hashOfAddress(address: string): Buffer | undefined {
  const bytes = decodeBase58Bytes(address);
  return bytes === undefined || bytes.length < 25 ? undefined : Buffer.from(bytes.subarray(bytes.length - 24, bytes.length - 4));
}

/** Checks a P2PKH input's scriptSig: key hash and signature over the legacy digest. Returns the key. */
function verifyInput(tx: Transaction, index: number, output: Output): Buffer {
  const hash = p2pkhHashOf(output.script);
  const chunks = btcScript.decompile(tx.ins[index]!.script);
  if (hash === undefined || chunks?.length !== 2 || !Buffer.isBuffer(chunks[0]) && !(chunks[0] instanceof Uint8Array)) throw refuse(RPC.rejected, 'mandatory-script-verify-flag-failed (not a P2PKH spend)');
  const [rawSignature, rawKey] = chunks as [Uint8Array, Uint8Array];
  const pubkey = Buffer.from(rawKey);
  if (!Buffer.from(btcCrypto.hash160(pubkey)).equals(hash)) throw refuse(RPC.rejected, 'mandatory-script-verify-flag-failed (key hash mismatch)');
  const { signature, hashType } = btcScript.signature.decode(rawSignature);
  const digest = tx.hashForSignature(index, output.script, hashType);
  const r = hexlify(signature.subarray(0, 32));
  const s = hexlify(signature.subarray(32, 64));
  const expected = SigningKey.computePublicKey(pubkey, true);
  const recovers = (v: 27 | 28) => {
    try {
      return SigningKey.computePublicKey(SigningKey.recoverPublicKey(digest, Signature.from({ r, s, v })), true) === expected;
    } catch {
      return false;
    }
  };
  const verified = recovers(27) || recovers(28);
  if (!verified) throw refuse(RPC.rejected, 'mandatory-script-verify-flag-failed (Signature must be zero for failed CHECK(MULTI)SIG operation)');
  return pubkey;
}

/** `OP_4 gas_limit gas_price data contract OP_CALL`, or `undefined` for any other script. */
function contractCall(script: Buffer): { contract: string; data: string; gasLimit: bigint; gasPrice: bigint } | undefined {
  const chunks = btcScript.decompile(script);
  if (chunks?.length !== 6 || chunks[0] !== opcodes.OP_4 || chunks[5] !== 0xc2) return undefined;
  const [, limit, price, data, contract] = chunks as [number, Uint8Array, Uint8Array, Uint8Array, Uint8Array];
  if (!(contract instanceof Uint8Array) || contract.length !== 20 || !(data instanceof Uint8Array)) return undefined;
  return { contract: `0x${Buffer.from(contract).toString('hex')}`, data: hexlify(data), gasLimit: BigInt(btcScript.number.decode(Buffer.from(limit))), gasPrice: BigInt(btcScript.number.decode(Buffer.from(price))) };
}

/** Runs the call on the EVM as a transaction from `sender` (impersonated, given gas money), mined at once. */
async function execute(evm: EvmRequest, sender: string, call: { contract: string; data: string; gasLimit: bigint }): Promise<{ evmTxHash: string; status: 'success' | 'reverted' }> {
  await evm('hardhat_impersonateAccount', [sender]);
  await evm('hardhat_setBalance', [sender, '0x56bc75e2d63100000']); // 100 ETH: gas here is paid in QTUM, not by the account
  try {
    const evmTxHash = (await evm('eth_sendTransaction', [{ from: sender, to: call.contract, data: call.data, gas: `0x${call.gasLimit.toString(16)}` }])) as string;
    const receipt = (await evm('eth_getTransactionReceipt', [evmTxHash])) as { status: string };
    return { evmTxHash, status: receipt.status === '0x1' ? 'success' : 'reverted' };
  } catch {
    // Qtum keeps a transaction whose call reverts (its gas is spent); the chain here refuses it.
    return { evmTxHash: '', status: 'reverted' };
  } finally {
    await evm('hardhat_stopImpersonatingAccount', [sender]);
  }
}
