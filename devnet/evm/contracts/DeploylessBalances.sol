// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// @title DeploylessBalances
/// @notice Never deployed. The service sends its creation code, followed by the ABI-encoded
///         constructor arguments, as the `data` of an `eth_call` without `to`; the constructor
///         makes the reads and `return`s the results, which become the call's output. Any EVM
///         node runs it, with or without a multicall contract on its chain.
/// @dev Written for this project. One result per read, in order: first, when `probe` is not zero,
///      `aggregate3([])` on it (is a working Multicall3 there? its answer's first word is 0x20 if
///      so); then each of `reads`, a word holding the read's kind in its top byte, an index into
///      `owners` in the two bytes below it, and an address in its low 20 bytes:
///      NATIVE: the address's balance; DECIMALS: the token's `decimals()`; BALANCE_OF: the
///      token's `balanceOf(owners[index])`. The output is `abi.encode(Result[])`, the shape of
///      Multicall3's `aggregate3` answer, so the service decodes both alike. When gas runs short
///      the constructor stops and returns the results it has: fewer results than reads means
///      "ask again for the rest".
contract DeploylessBalances {
    struct Result {
        bool success;
        bytes returnData;
    }

    uint256 private constant NATIVE = 0;
    uint256 private constant DECIMALS = 1;
    uint256 private constant BALANCE_OF = 2;

    /// Most gas one token call may use; a call that needs more fails here and is read on its own.
    uint256 private constant CALL_GAS = 500_000;
    /// Gas kept back for returning the results: a fixed part, and per result its encoding and the
    /// 200 gas per byte a node charges for the bytes a constructor returns (160 bytes a result).
    uint256 private constant RESERVE_GAS = 100_000;
    uint256 private constant RESERVE_PER_RESULT = 40_000;

    bytes4 private constant BALANCE_OF_SELECTOR = 0x70a08231; // balanceOf(address)
    bytes4 private constant DECIMALS_SELECTOR = 0x313ce567; // decimals()
    bytes4 private constant AGGREGATE3_SELECTOR = 0x82ad56cb; // aggregate3((address,bool,bytes)[])

    constructor(address probe, address[] memory owners, uint256[] memory reads) {
        uint256 first = probe == address(0) ? 0 : 1;
        Result[] memory results = new Result[](first + reads.length);
        uint256 done = 0;
        // Too little gas for the probe is too little for any read: answer nothing, and the
        // service reads on its own.
        bool room = first == 0 || gasleft() >= CALL_GAS + RESERVE_GAS;
        if (first == 1 && room) {
            results[0] = tryCall(probe, abi.encodeWithSelector(AGGREGATE3_SELECTOR, uint256(0x20), uint256(0)));
            done = 1;
        }
        bytes memory decimalsCall = abi.encodeWithSelector(DECIMALS_SELECTOR);
        for (uint256 i = 0; room && i < reads.length; ++i) {
            if (gasleft() < CALL_GAS + RESERVE_GAS + done * RESERVE_PER_RESULT) break;
            uint256 read = reads[i];
            uint256 kind = read >> 248;
            address target = address(uint160(read));
            if (kind == NATIVE) {
                results[done] = Result(true, abi.encode(target.balance));
            } else if (kind == DECIMALS) {
                results[done] = tryCall(target, decimalsCall);
            } else {
                results[done] = tryCall(target, abi.encodeWithSelector(BALANCE_OF_SELECTOR, owners[(read >> 160) & 0xffff]));
            }
            ++done;
        }
        assembly {
            mstore(results, done) // the results made; the rest are asked for again
        }
        bytes memory output = abi.encode(results);
        assembly {
            return(add(output, 32), mload(output))
        }
    }

    /// Calls `target` with at most CALL_GAS, keeping at most the first 32 bytes it returns (the
    /// service reads one word of a success and repeats a failure on its own).
    function tryCall(address target, bytes memory data) private returns (Result memory) {
        bytes memory output = new bytes(32);
        bool ok;
        uint256 size;
        assembly {
            ok := call(CALL_GAS, target, 0, add(data, 32), mload(data), add(output, 32), 32)
            size := returndatasize()
        }
        if (size < 32) {
            assembly {
                mstore(output, size)
            }
        }
        return Result(ok, output);
    }
}
