/** Local test infrastructure: an in-process EVM devnet, misbehaving nodes and a latency proxy. */
export {
  startEvmDevnet,
  DEVNET_DEFAULT_CHAIN_ID,
  DEVNET_DEPLOYER_BALANCE_WEI,
  DEVNET_DEPLOYER_PRIVATE_KEY,
  type EvmDevnet,
  type EvmDevnetOptions,
} from './evmDevnet.ts';
export type { EvmRequest } from './inProcessEvm.ts';
export { compileTestToken, type DeployedTestToken, type TestTokenSpec } from './testTokens.ts';
export { compileSolidity, compileSolidityFile, type CompiledContract, type CompileOptions } from './solidity.ts';
export { startJsonRpcServer, type JsonRpcHandler, type JsonRpcServer, type JsonRpcServerOptions } from './jsonRpcServer.ts';
export { refusedUrl, startSilentNode, type SilentNode } from './faultyNodes.ts';
export { startLatencyProxy, type LatencyProxy, type LatencyProxyOptions, type LatencyProxyStats } from './latencyProxy.ts';
export { startDeviceDouble, pinToPositions, TEST_MNEMONIC, type DeviceDouble } from './hardware/deviceDouble.ts';
export { startTronNode, type TronNode, type TronNodeOptions, type TronBusyReply } from './tron/tronNode.ts';
