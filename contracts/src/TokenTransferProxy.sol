// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @notice The one spender users approve. Only contracts the operator authorises (the settlement contract)
/// may move tokens through it, so upgrading settlement never asks users for a new approval.
contract TokenTransferProxy is Ownable {
    using SafeERC20 for IERC20;

    mapping(address => bool) public authorised;

    event AuthorisedSet(address indexed caller, bool allowed);

    error NotAuthorised(address caller);

    constructor(address operator) Ownable(operator) {}

    function setAuthorised(address caller, bool allowed) external onlyOwner {
        authorised[caller] = allowed;
        emit AuthorisedSet(caller, allowed);
    }

    function transferFrom(IERC20 token, address from, address to, uint256 amount) external {
        if (!authorised[msg.sender]) revert NotAuthorised(msg.sender);
        token.safeTransferFrom(from, to, amount);
    }
}
