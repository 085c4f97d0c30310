// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @notice Holds matched stakes per market until the operator reports the outcome. Each bettor's position in a
/// market is kept as what they staked on each outcome and what each outcome would pay them, so the payout of
/// every outcome is known in advance: refunds never exceed the smallest of those payouts, and the payouts of all
/// bettors for any outcome add up to exactly what the market holds.
abstract contract OddexEscrow is Ownable {
    using SafeERC20 for IERC20;

    struct Position {
        uint256 stakeOne;
        uint256 stakeTwo;
        /// Paid if outcome one (two) wins: the stakes on it plus the counterparties' stakes against them.
        uint256 winOne;
        uint256 winTwo;
        uint256 refunded;
        bool claimed;
    }

    IERC20 public immutable token;
    /// The exchange's account that submits fills and pays capital-efficiency refunds.
    address public executor;

    mapping(bytes32 => mapping(address => Position)) public positions;
    /// Tokens held for each market: stakes in, less refunds and claims out.
    mapping(bytes32 => uint256) public held;
    mapping(bytes32 => bool) public reported;
    mapping(bytes32 => uint8) public outcomeOf;
    /// Tokens held across all markets; equals this contract's token balance unless someone sends tokens directly.
    uint256 public totalHeld;
    /// Refunds paid, by the exchange's key for each (so a refund sent twice is paid once).
    mapping(bytes32 => bool) public refundPaid;

    event ExecutorSet(address indexed executor);
    event OutcomeReported(bytes32 indexed marketHash, uint8 outcome);
    event Refunded(bytes32 indexed marketHash, address indexed bettor, uint256 amount, bytes32 indexed refundKey);
    event Claimed(bytes32 indexed marketHash, address indexed bettor, uint256 amount);

    error NotExecutor(address caller);
    error BadOutcome(uint8 outcome);
    error MarketReported(bytes32 marketHash);
    error MarketNotReported(bytes32 marketHash);
    error RefundTooLarge(bytes32 marketHash, address bettor, uint256 amount, uint256 allowed);
    error AlreadyClaimed(bytes32 marketHash, address bettor);
    error PayoutExceedsHeld(bytes32 marketHash, uint256 payout, uint256 held);
    error RefundAlreadyPaid(bytes32 refundKey);

    modifier onlyExecutor() {
        if (msg.sender != executor) revert NotExecutor(msg.sender);
        _;
    }

    constructor(IERC20 token_, address executor_) {
        token = token_;
        executor = executor_;
    }

    function setExecutor(address executor_) external onlyOwner {
        executor = executor_;
        emit ExecutorSet(executor_);
    }

    /// @notice The operator reports a market: 0 void, 1 outcome one, 2 outcome two. Once only.
    function reportOutcome(bytes32 marketHash, uint8 outcome) external onlyOwner {
        if (outcome > 2) revert BadOutcome(outcome);
        if (reported[marketHash]) revert MarketReported(marketHash);
        reported[marketHash] = true;
        outcomeOf[marketHash] = outcome;
        emit OutcomeReported(marketHash, outcome);
    }

    /// @notice What the position pays for an outcome, before refunds.
    function payoutFor(bytes32 marketHash, address bettor, uint8 outcome) public view returns (uint256) {
        Position storage p = positions[marketHash][bettor];
        if (outcome == 0) return p.stakeOne + p.stakeTwo;
        return outcome == 1 ? p.winOne : p.winTwo;
    }

    /// @notice Most that may be refunded before the outcome: the smallest payout of any outcome, less refunds so far.
    function refundable(bytes32 marketHash, address bettor) public view returns (uint256) {
        uint256 least = payoutFor(marketHash, bettor, 0);
        uint256 one = payoutFor(marketHash, bettor, 1);
        uint256 two = payoutFor(marketHash, bettor, 2);
        if (one < least) least = one;
        if (two < least) least = two;
        return least - positions[marketHash][bettor].refunded;
    }

    /// @notice Capital-efficiency refund: escrow no outcome can need goes back to the bettor early. `refundKey`
    /// names the refund (the exchange uses keccak256(marketHash, bettor, fillHash)) so it is paid at most once.
    function refund(bytes32 marketHash, address bettor, uint256 amount, bytes32 refundKey) external onlyExecutor {
        if (refundPaid[refundKey]) revert RefundAlreadyPaid(refundKey);
        if (reported[marketHash]) revert MarketReported(marketHash);
        uint256 allowed = refundable(marketHash, bettor);
        if (amount > allowed) revert RefundTooLarge(marketHash, bettor, amount, allowed);
        refundPaid[refundKey] = true;
        positions[marketHash][bettor].refunded += amount;
        _payOut(marketHash, bettor, amount);
        emit Refunded(marketHash, bettor, amount, refundKey);
    }

    /// @notice Pays a bettor's position in a reported market (anyone may call; the tokens go to the bettor).
    function claim(bytes32 marketHash, address bettor) public {
        if (!reported[marketHash]) revert MarketNotReported(marketHash);
        Position storage p = positions[marketHash][bettor];
        if (p.claimed) revert AlreadyClaimed(marketHash, bettor);
        p.claimed = true;
        uint256 amount = payoutFor(marketHash, bettor, outcomeOf[marketHash]) - p.refunded;
        _payOut(marketHash, bettor, amount);
        emit Claimed(marketHash, bettor, amount);
    }

    function claimMany(bytes32 marketHash, address[] calldata bettors) external {
        for (uint256 i = 0; i < bettors.length; i++) claim(marketHash, bettors[i]);
    }

    /// @dev Records a matched stake: `stake` from the bettor on one outcome against `counterStake` on the other.
    function _credit(bytes32 marketHash, address bettor, bool bettingOne, uint256 stake, uint256 counterStake) internal {
        Position storage p = positions[marketHash][bettor];
        if (bettingOne) {
            p.stakeOne += stake;
            p.winOne += stake + counterStake;
        } else {
            p.stakeTwo += stake;
            p.winTwo += stake + counterStake;
        }
        held[marketHash] += stake;
        totalHeld += stake;
    }

    function _payOut(bytes32 marketHash, address to, uint256 amount) private {
        uint256 available = held[marketHash];
        if (amount > available) revert PayoutExceedsHeld(marketHash, amount, available);
        held[marketHash] = available - amount;
        totalHeld -= amount;
        if (amount > 0) token.safeTransfer(to, amount);
    }
}
