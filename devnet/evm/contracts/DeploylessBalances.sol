// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// @title DeploylessBalances
/// @notice Never deployed. The service sends its creation code, followed by the ABI-encoded
///         constructor arguments, as the `data` of an `eth_call` without `to`; the constructor
///         reads everything and `return`s the results, which become the call's output. Any EVM
///         node runs it, with or without a multicall contract on its chain.
/// @dev Written for this project. The reads, in this order (one result each): when `probe` is
///      not zero, `aggregate3([])` on it (is a working Multicall3 there? its answer's first word is
///      0x20 if so); `decimals()` of every token in `decimalsOf`; then for every account in
///      `owners` its native balance followed by `balanceOf(owner)` of every token in `tokens`.
///      Only the reads from `skip` on, at most `count` of them, are made: the service splits the
///      reads into chunks and asks again for what a node's gas cap cut short.
///      The output is `abi.encode(Result[])`, the shape of Multicall3's `aggregate3` answer, so the
///      service decodes both alike. When gas runs short the constructor stops and returns the
///      results it has: fewer results than reads means "ask again from there".
contract DeploylessBalances {
    struct Result {
        bool success;
        bytes returnData;
    }

    /// Most gas one token call may use; a call that needs more fails here and is read on its own.
    uint256 private constant CALL_GAS = 500_000;
    /// Gas kept back for returning the results: a fixed part, and per result its encoding and the
    /// 200 gas per byte a node charges for the bytes a constructor returns (160 bytes a result).
    uint256 private constant RESERVE_GAS = 100_000;
    uint256 private constant RESERVE_PER_RESULT = 40_000;

    bytes4 private constant BALANCE_OF = 0x70a08231; // balanceOf(address)
    bytes4 private constant DECIMALS = 0x313ce567; // decimals()
    bytes4 private constant AGGREGATE3 = 0x82ad56cb; // aggregate3((address,bool,bytes)[])

    constructor(address probe, address[] memory decimalsOf, address[] memory owners, address[] memory tokens, uint256 skip, uint256 count) {
        uint256 first = probe == address(0) ? 0 : 1;
        uint256 perOwner = tokens.length + 1;
        uint256 total = first + decimalsOf.length + owners.length * perOwner;
        if (skip > total) skip = total;
        if (count > total - skip) count = total - skip;
        uint256 end = skip + count;
        Result[] memory results = new Result[](count);
        uint256 done = 0;
        bytes memory decimalsCall = abi.encodeWithSelector(DECIMALS);
        for (uint256 i = skip; i < end; ++i) {
            if (gasleft() < CALL_GAS + RESERVE_GAS + done * RESERVE_PER_RESULT) break;
            if (i < first) {
                results[done] = tryCall(probe, abi.encodeWithSelector(AGGREGATE3, uint256(0x20), uint256(0)));
            } else if (i < first + decimalsOf.length) {
                results[done] = tryCall(decimalsOf[i - first], decimalsCall);
            } else {
                uint256 at = i - first - decimalsOf.length;
                address owner = owners[at / perOwner];
                uint256 slot = at % perOwner;
                results[done] = slot == 0
                    ? Result(true, abi.encode(owner.balance))
                    : tryCall(tokens[slot - 1], abi.encodeWithSelector(BALANCE_OF, owner));
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
