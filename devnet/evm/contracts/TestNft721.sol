// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

/// @title TestNft721
/// @notice Minimal ERC721 for the local devnet: the owner mints, holders (or their approved operator) transfer.
/// @dev Written from scratch (no OpenZeppelin); no receiver hooks, no metadata.
contract TestNft721 {
    string public name;
    string public symbol;
    address public immutable owner;

    mapping(uint256 => address) public ownerOf;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => bool)) public isApprovedForAll;

    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    event ApprovalForAll(address indexed holder, address indexed operator, bool approved);

    constructor(string memory name_, string memory symbol_) {
        name = name_;
        symbol = symbol_;
        owner = msg.sender;
    }

    /// @notice Creates token `tokenId` for `to`. Owner only.
    function mint(address to, uint256 tokenId) external {
        require(msg.sender == owner, "TestNft721: caller is not the owner");
        require(to != address(0), "TestNft721: mint to the zero address");
        require(ownerOf[tokenId] == address(0), "TestNft721: token exists");
        ownerOf[tokenId] = to;
        balanceOf[to] += 1;
        emit Transfer(address(0), to, tokenId);
    }

    function setApprovalForAll(address operator, bool approved) external {
        isApprovedForAll[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    function transferFrom(address from, address to, uint256 tokenId) external {
        require(ownerOf[tokenId] == from && from != address(0), "TestNft721: not the holder");
        require(msg.sender == from || isApprovedForAll[from][msg.sender], "TestNft721: not allowed");
        require(to != address(0), "TestNft721: transfer to the zero address");
        ownerOf[tokenId] = to;
        balanceOf[from] -= 1;
        balanceOf[to] += 1;
        emit Transfer(from, to, tokenId);
    }
}
