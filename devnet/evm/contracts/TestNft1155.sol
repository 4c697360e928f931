// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// @title TestNft1155
/// @notice Minimal ERC1155 for the local devnet: the owner mints (one id or a batch), holders transfer.
/// @dev Written from scratch (no OpenZeppelin); no receiver hooks, no URI.
contract TestNft1155 {
    address public immutable owner;

    mapping(uint256 => mapping(address => uint256)) public balanceOf;

    event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value);
    event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values);

    constructor() {
        owner = msg.sender;
    }

    /// @notice Creates `amount` of token `id` for `to`. Owner only.
    function mint(address to, uint256 id, uint256 amount) external {
        require(msg.sender == owner, "TestNft1155: caller is not the owner");
        require(to != address(0), "TestNft1155: mint to the zero address");
        balanceOf[id][to] += amount;
        emit TransferSingle(msg.sender, address(0), to, id, amount);
    }

    /// @notice Creates `amounts[i]` of each token `ids[i]` for `to`. Owner only.
    function mintBatch(address to, uint256[] calldata ids, uint256[] calldata amounts) external {
        require(msg.sender == owner, "TestNft1155: caller is not the owner");
        require(to != address(0), "TestNft1155: mint to the zero address");
        require(ids.length == amounts.length, "TestNft1155: length mismatch");
        for (uint256 i = 0; i < ids.length; i++) {
            balanceOf[ids[i]][to] += amounts[i];
        }
        emit TransferBatch(msg.sender, address(0), to, ids, amounts);
    }

    function safeTransferFrom(address from, address to, uint256 id, uint256 amount, bytes calldata) external {
        require(msg.sender == from, "TestNft1155: not allowed");
        require(to != address(0), "TestNft1155: transfer to the zero address");
        uint256 balance = balanceOf[id][from];
        require(balance >= amount, "TestNft1155: insufficient balance");
        unchecked {
            balanceOf[id][from] = balance - amount;
        }
        balanceOf[id][to] += amount;
        emit TransferSingle(msg.sender, from, to, id, amount);
    }
}
