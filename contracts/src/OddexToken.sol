// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Permit.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @notice The test base token: 6 decimals like USDC, EIP-2612 permit, minted only by the operator (the faucet).
contract OddexToken is ERC20, ERC20Permit, Ownable {
    constructor(string memory name_, string memory symbol_, address operator)
        ERC20(name_, symbol_)
        ERC20Permit(name_)
        Ownable(operator)
    {}

    function decimals() public pure override returns (uint8) {
        return 6;
    }

    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }
}
