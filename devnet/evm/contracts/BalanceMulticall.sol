// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// @title BalanceMulticall
/// @notice The read-only subset of the Multicall3 interface the service uses (`aggregate3`,
///         `getEthBalance`, `getBlockNumber`), with the same selectors and ABI, so a devnet can
///         serve it at the canonical Multicall3 address.
/// @dev Written for this project. `aggregate3` runs each call with `call` (not `staticcall`, as
///      Multicall3 does), reports every outcome, and reverts only when a call that does not
///      allow failure fails.
contract BalanceMulticall {
    struct Call3 {
        address target;
        bool allowFailure;
        bytes callData;
    }

    struct Result {
        bool success;
        bytes returnData;
    }

    function aggregate3(Call3[] calldata calls) external payable returns (Result[] memory results) {
        uint256 count = calls.length;
        results = new Result[](count);
        for (uint256 i = 0; i < count; ++i) {
            Call3 calldata item = calls[i];
            (bool ok, bytes memory data) = item.target.call(item.callData);
            if (!ok && !item.allowFailure) revert("BalanceMulticall: call failed");
            results[i] = Result(ok, data);
        }
    }

    function getEthBalance(address account) external view returns (uint256) {
        return account.balance;
    }

    function getBlockNumber() external view returns (uint256) {
        return block.number;
    }
}
