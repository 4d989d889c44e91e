// SPDX-License-Identifier: MIT
// The ERC-20 token the EVM rail tests deploy on anvil (tests/evm/token.py holds its
// compiled form: solc 0.8.28, optimizer on, 200 runs; recompile with
// `npx -p solc@0.8.28 solcjs --bin --abi --optimize --optimize-runs 200 TestToken.sol`).
// Test only: anyone may mint, and anyone may freeze an account (its transfers then revert
// with "TestToken: sender frozen"), so the tests can make a signed payout fail on chain.
pragma solidity 0.8.28;

contract TestToken {
    string public name;
    string public symbol;
    uint8 public immutable decimals;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    mapping(address => bool) public frozen;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(string memory name_, string memory symbol_, uint8 decimals_) {
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
    }

    function mint(address to, uint256 value) external {
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    function freeze(address account, bool isFrozen) external {
        frozen[account] = isFrozen;
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _move(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        require(allowance[from][msg.sender] >= value, "TestToken: allowance too low");
        allowance[from][msg.sender] -= value;
        _move(from, to, value);
        return true;
    }

    function _move(address from, address to, uint256 value) internal {
        require(!frozen[from], "TestToken: sender frozen");
        require(balanceOf[from] >= value, "TestToken: balance too low");
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}
