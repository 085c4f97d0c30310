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
        /// Paid at once by cash outs (before their fee), netted at the claim.
        uint256 cashedOut;
        /// The bettor cashed out here (even for 0): no capital-efficiency refund is paid here any more.
        bool hasCashedOut;
    }

    /// Fee rates in basis points, set by the owner: the commission on a bettor's net winnings per market (singles and
    /// parlays), the cash-out fee (of a cash out's value), and the affiliate's share of every fee. A market settles at
    /// the rate of its bet type when it is reported.
    struct Fees {
        uint16 singlesBps;
        uint16 parlaysBps;
        uint16 cashOutBps;
        uint16 affiliateShareBps;
        address account;
        /// Paid affiliateShareBps of each fee; none for the zero address.
        address affiliate;
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
    Fees public fees;
    /// The commission rate each reported market settles at (basis points of net winnings).
    mapping(bytes32 => uint16) public feeBpsOf;

    uint256 private constant BPS = 10_000;

    event ExecutorSet(address indexed executor);
    event OutcomeReported(bytes32 indexed marketHash, uint8 outcome);
    event Refunded(bytes32 indexed marketHash, address indexed bettor, uint256 amount, bytes32 indexed refundKey);
    event Claimed(bytes32 indexed marketHash, address indexed bettor, uint256 amount);
    event FeesSet(Fees fees);
    /// A fee taken from a bettor's payout (commission or cash-out fee): `fee` in all, `affiliateFee` of it to the affiliate.
    event FeeCharged(bytes32 indexed marketHash, address indexed bettor, uint256 fee, uint256 affiliateFee);

    error NotExecutor(address caller);
    error BadOutcome(uint8 outcome);
    error MarketReported(bytes32 marketHash);
    error MarketNotReported(bytes32 marketHash);
    error RefundTooLarge(bytes32 marketHash, address bettor, uint256 amount, uint256 allowed);
    error AlreadyClaimed(bytes32 marketHash, address bettor);
    error PayoutExceedsHeld(bytes32 marketHash, uint256 payout, uint256 held);
    error RefundAlreadyPaid(bytes32 refundKey);
    error RefundAfterCashOut(bytes32 marketHash, address bettor);
    error BadFees();

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

    /// @notice Sets the fee rates and accounts. A rate above 100% is refused, and so is any fee without a fee
    /// account: the zero address cannot receive the token.
    function setFees(Fees calldata f) external onlyOwner {
        if (f.singlesBps > BPS || f.parlaysBps > BPS || f.cashOutBps > BPS || f.affiliateShareBps > BPS) revert BadFees();
        if (f.account == address(0) && (f.singlesBps | f.parlaysBps | f.cashOutBps) != 0) revert BadFees();
        fees = f;
        emit FeesSet(f);
    }

    /// @notice The operator reports a single's market: 0 void, 1 outcome one, 2 outcome two. Once only.
    function reportOutcome(bytes32 marketHash, uint8 outcome) external onlyOwner {
        _report(marketHash, outcome, fees.singlesBps);
    }

    /// @notice As reportOutcome, for a parlay's market: it settles at the parlays' commission rate.
    function reportParlayOutcome(bytes32 marketHash, uint8 outcome) external onlyOwner {
        _report(marketHash, outcome, fees.parlaysBps);
    }

    function _report(bytes32 marketHash, uint8 outcome, uint16 feeBps) private {
        if (outcome > 2) revert BadOutcome(outcome);
        if (reported[marketHash]) revert MarketReported(marketHash);
        reported[marketHash] = true;
        outcomeOf[marketHash] = outcome;
        feeBpsOf[marketHash] = feeBps;
        emit OutcomeReported(marketHash, outcome);
    }

    /// @notice What the position pays for an outcome, before refunds.
    function payoutFor(bytes32 marketHash, address bettor, uint8 outcome) public view returns (uint256) {
        Position storage p = positions[marketHash][bettor];
        if (outcome == 0) return p.stakeOne + p.stakeTwo;
        return outcome == 1 ? p.winOne : p.winTwo;
    }

    /// @notice Most that may be refunded before the outcome: the smallest payout of any outcome, less refunds so far
    /// (none after a cash out).
    function refundable(bytes32 marketHash, address bettor) public view returns (uint256) {
        Position storage p = positions[marketHash][bettor];
        if (p.hasCashedOut) return 0;
        return _least(p) - p.refunded;
    }

    /// @notice The commission a position pays at its claim: the market's rate of its net winnings, never of a loss.
    function commissionOf(bytes32 marketHash, address bettor) public view returns (uint256) {
        Position storage p = positions[marketHash][bettor];
        uint256 payout = payoutFor(marketHash, bettor, outcomeOf[marketHash]);
        uint256 stakes = p.stakeOne + p.stakeTwo;
        return payout > stakes ? ((payout - stakes) * feeBpsOf[marketHash]) / BPS : 0;
    }

    /// @notice Capital-efficiency refund: escrow no outcome can need goes back to the bettor early. `refundKey`
    /// names the refund (the exchange uses keccak256(marketHash, bettor, fillHash)) so it is paid at most once.
    function refund(bytes32 marketHash, address bettor, uint256 amount, bytes32 refundKey) external onlyExecutor {
        if (refundPaid[refundKey]) revert RefundAlreadyPaid(refundKey);
        if (reported[marketHash]) revert MarketReported(marketHash);
        if (positions[marketHash][bettor].hasCashedOut) revert RefundAfterCashOut(marketHash, bettor);
        uint256 allowed = refundable(marketHash, bettor);
        if (amount > allowed) revert RefundTooLarge(marketHash, bettor, amount, allowed);
        refundPaid[refundKey] = true;
        positions[marketHash][bettor].refunded += amount;
        _payOut(marketHash, bettor, amount);
        emit Refunded(marketHash, bettor, amount, refundKey);
    }

    /// @notice Pays a bettor's position in a reported market (anyone may call; the tokens go to the bettor): its
    /// payout less what refunds and cash outs paid early and the commission, which goes to the fee account.
    function claim(bytes32 marketHash, address bettor) public {
        if (!reported[marketHash]) revert MarketNotReported(marketHash);
        Position storage p = positions[marketHash][bettor];
        if (p.claimed) revert AlreadyClaimed(marketHash, bettor);
        p.claimed = true;
        uint256 fee = commissionOf(marketHash, bettor);
        uint256 amount = payoutFor(marketHash, bettor, outcomeOf[marketHash]) - p.refunded - p.cashedOut - fee;
        _payOut(marketHash, bettor, amount);
        _payFee(marketHash, bettor, fee);
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

    /**
     * @dev A cash out of the bettor's position (its hedge just credited, `hedgeStake` of it the bettor's): pays at
     * once what the position is now owed in every result (outcome one, outcome two, a void) less what refunds and
     * earlier cash outs paid, less the cash-out fee (cashOutBps of the value: the least outcome payout less those
     * payments and the hedge stake, at most the payment). The exchange's ledger pays exactly this (settlement.ts).
     */
    function _cashOut(bytes32 marketHash, address bettor, uint256 hedgeStake) internal returns (uint256 amount, uint256 fee) {
        Position storage p = positions[marketHash][bettor];
        uint256 either = p.winOne < p.winTwo ? p.winOne : p.winTwo;
        uint256 every = _least(p);
        uint256 paid = p.refunded + p.cashedOut;
        amount = every > paid ? every - paid : 0;
        uint256 value = either > paid + hedgeStake ? either - paid - hedgeStake : 0;
        fee = (value * fees.cashOutBps) / BPS;
        if (fee > amount) fee = amount;
        p.cashedOut += amount;
        p.hasCashedOut = true;
        _payOut(marketHash, bettor, amount - fee);
        _payFee(marketHash, bettor, fee);
    }

    /// @dev The smallest payout of any outcome, a void included.
    function _least(Position storage p) private view returns (uint256 least) {
        least = p.stakeOne + p.stakeTwo;
        if (p.winOne < least) least = p.winOne;
        if (p.winTwo < least) least = p.winTwo;
    }

    /// @dev A fee from the bettor's payout to the fee account, less the affiliate's share.
    function _payFee(bytes32 marketHash, address bettor, uint256 fee) private {
        if (fee == 0) return;
        address affiliate = fees.affiliate;
        uint256 affiliateFee = affiliate == address(0) ? 0 : (fee * fees.affiliateShareBps) / BPS;
        _payOut(marketHash, fees.account, fee - affiliateFee);
        _payOut(marketHash, affiliate, affiliateFee);
        emit FeeCharged(marketHash, bettor, fee, affiliateFee);
    }

    function _payOut(bytes32 marketHash, address to, uint256 amount) private {
        uint256 available = held[marketHash];
        if (amount > available) revert PayoutExceedsHeld(marketHash, amount, available);
        held[marketHash] = available - amount;
        totalHeld -= amount;
        if (amount > 0) token.safeTransfer(to, amount);
    }
}
