/** Local test infrastructure: an in-process EVM devnet, misbehaving nodes and a latency proxy. */
export {
  startEvmDevnet,
  DEVNET_DEFAULT_CHAIN_ID,
  DEVNET_DEPLOYER_BALANCE_WEI,
  DEVNET_DEPLOYER_PRIVATE_KEY,
  type EvmDevnet,
  type EvmDevnetOptions,
} from './evm/evmDevnet.ts';
export type { EvmRequest } from './evm/inProcessEvm.ts';
export { compileTestToken, type DeployedTestToken, type TestTokenSpec } from './evm/testTokens.ts';
export { compileSolidity, compileSolidityFile, type CompiledContract, type CompileOptions } from './evm/solidity.ts';
export { startJsonRpcServer, type JsonRpcHandler, type JsonRpcServer, type JsonRpcServerOptions } from './evm/jsonRpcServer.ts';
export { refusedUrl, startSilentNode, startSilentWsNode, type SilentNode, type SilentWsNode } from './proxies/faultyNodes.ts';
export { startBusyNode, BusyMode, type BusyNode, type BusyBehaviour } from './proxies/busyNode.ts';
export { startGatewayProxy, type GatewayProxy, type GatewayProxyOptions, type GatewayProxyStats } from './proxies/gatewayProxy.ts';
export { startLimitedNode, type NodeLimits } from './proxies/limitedNode.ts';
export { startLatencyProxy, type LatencyProxy, type LatencyProxyOptions, type LatencyProxyStats } from './proxies/latencyProxy.ts';
export { startDeviceDouble, pinToPositions, TEST_MNEMONIC, type DeviceDouble } from './hardware/deviceDouble.ts';
export { startTronNode, type TronNode, type TronNodeOptions, type TronBusyReply } from './tron/tronNode.ts';
export { startLitecoind, type Litecoind, type LitecoindOptions } from './litecoind/litecoind.ts';
export { fundImmatureCoinbase, COINBASE_MATURITY, type CoinbaseFunding } from './litecoind/coinbaseFunding.ts';
export { LITECOIN_REGTEST, p2pkhAddress, addressScript } from './litecoind/litecoinRegtest.ts';
export { createRpcClient, nodeRpc, DaemonRpcError, type RpcCall, type RpcEndpoint } from '../infra/utxo/daemonRpc.ts';
export { LITOSHIS_PER_LTC, parseCoinAmount, formatCoinAmount, parseRpcJsonExact, amountField } from '../infra/utxo/daemonAmounts.ts';
export { startElectrumServer, ELECTRUM_SERVER_MODES, type ElectrumServer, type ElectrumServerMode, type ElectrumServerOptions } from './electrum/electrumServer.ts';
export { ELECTRUM_TRANSPORTS, type ElectrumTransport } from './electrum/transports.ts';
export { ELECTRUM_PROTOCOL_VERSION, ELECTRUM_SERVER_SOFTWARE } from './electrum/serverMethods.ts';
export { devnetTls, type DevnetTls, type TlsKeyPair } from './electrum/devnetTls.ts';
export { addressScriptHash, scriptHashOf } from './electrum/hashes.ts';
export { connectElectrum, ElectrumCallError, type ElectrumTestClient } from './electrum/electrumTestClient.ts';
export { startGasStation, GasStationMode, type GasStation, type GasStationOptions } from './gasStation/gasStation.ts';
export { deployTestNfts, type TestNfts } from './evm/testNfts.ts';
export { startNftIndexer, NftIndexerMode, type NftIndexer, type NftIndexerOptions, type NftIndexerRequest } from './nftIndexer/nftIndexer.ts';
