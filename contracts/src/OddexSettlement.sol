// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {Strings} from "@openzeppelin/contracts/utils/Strings.sol";
import {OddexEscrow} from "./OddexEscrow.sol";
import {TokenTransferProxy} from "./TokenTransferProxy.sol";

/// @notice Executes fills the exchange accepted. Verifies every signature exactly as the API does (the maker's
/// EIP-191 order hash, the taker's EIP-712 fill), order expiry, remaining size and the maker's own on-chain
/// cancel, refuses a fill hash or salt seen before, and moves both stakes from the wallets into escrow in one
/// transaction. Its address is the fill domain's verifyingContract (metadata EIP712FillHasher).
contract OddexSettlement is OddexEscrow, EIP712 {
    uint256 public constant ODDS_SCALE = 1e20;

    /// The maker order as signed: its hash is keccak256 of these fields packed in this order.
    struct Order {
        bytes32 marketHash;
        address baseToken;
        uint256 totalBetSize;
        uint256 percentageOdds;
        uint256 expiry;
        uint256 salt;
        address maker;
        address executor;
        bool isMakerBettingOutcomeOne;
    }

    struct Match {
        Order order;
        bytes makerSig;
        uint256 takerStake;
    }

    /// The taker's signed fill request; `market` and `baseToken` are the strings exactly as the taker signed them.
    struct Fill {
        address taker;
        string market;
        string baseToken;
        uint256 stakeWei;
        uint256 desiredOdds;
        uint256 oddsSlippage;
        bool isTakerBettingOutcomeOne;
        uint256 fillSalt;
        /// Zero for an ordinary fill; the fill's market hash for a cash out: the fill hedges the taker's position there
        /// and the hedged value is paid at once, less the cash-out fee.
        bytes32 cashOutTarget;
        bytes takerSig;
        /// A quarter line's two legs (lower line first), or zero: each matched stake is split in halves.
        bytes32[2] legs;
        Match[] matches;
    }

    bytes32 private constant FILL_OBJECT_TYPEHASH = keccak256(
        "FillObject(string stakeWei,string marketHash,string baseToken,string desiredOdds,uint256 oddsSlippage,bool isTakerBettingOutcomeOne,uint256 fillSalt,address beneficiary,uint8 beneficiaryType,bytes32 cashOutTarget)"
    );
    bytes32 private constant DETAILS_TYPEHASH = keccak256(
        "Details(string action,string market,string betting,string stake,string worstOdds,string worstReturning,FillObject fills)FillObject(string stakeWei,string marketHash,string baseToken,string desiredOdds,uint256 oddsSlippage,bool isTakerBettingOutcomeOne,uint256 fillSalt,address beneficiary,uint8 beneficiaryType,bytes32 cashOutTarget)"
    );
    bytes32 private constant NOT_APPLICABLE = keccak256("N/A");

    TokenTransferProxy public immutable proxy;

    mapping(bytes32 => bool) public fillSettled;
    mapping(uint256 => bool) public fillSaltUsed;
    /// Maker stake filled per order hash.
    mapping(bytes32 => uint256) public filled;
    mapping(bytes32 => bool) public cancelled;

    event FillSettled(bytes32 indexed fillHash, address indexed taker, bytes32 indexed marketHash, uint256 takerStake, uint256 makerStake);
    event FillFailed(bytes32 indexed fillHash, bytes reason);
    /// A cash out paid `amount` (before `fee`) to the taker of the fill `fillHash`.
    event CashedOut(bytes32 indexed fillHash, address indexed bettor, bytes32 indexed marketHash, uint256 amount, uint256 fee);
    event OrderCancelled(bytes32 indexed orderHash, address indexed maker);

    error OnlySelf();
    error NoMatches();
    error FillAlreadySettled(bytes32 fillHash);
    error FillSaltUsed(uint256 fillSalt);
    error BadTakerSignature(bytes32 fillHash);
    error BadMakerSignature(bytes32 orderHash);
    error MarketMismatch();
    error BaseTokenMismatch();
    error ExecutorMismatch(bytes32 orderHash);
    error SameSide(bytes32 orderHash);
    error SelfMatch(bytes32 orderHash);
    error OrderExpired(bytes32 orderHash);
    error OrderIsCancelled(bytes32 orderHash);
    error BadOdds(bytes32 orderHash);
    error AverageOddsBelowSlippage(uint256 averageTakerOdds, uint256 minTakerOdds);
    error BadSlippage(uint256 oddsSlippage);
    error ZeroStake(bytes32 orderHash);
    error OrderOverfilled(bytes32 orderHash, uint256 filled, uint256 totalBetSize);
    error StakeAboveSigned(uint256 matched, uint256 signed);
    error NotMaker(address caller);
    error BadCashOutTarget(bytes32 cashOutTarget);
    error NoPosition(bytes32 marketHash, address bettor);
    error CashOutAfterRefund(bytes32 marketHash, address bettor);
    error NothingToCashOut(bytes32 marketHash, address bettor);
    error CashOutWrongSide(bytes32 marketHash, address bettor);
    error CashOutTooLarge(uint256 returned, uint256 hedgeNeeds);

    constructor(
        IERC20 token_,
        TokenTransferProxy proxy_,
        address executor_,
        address operator,
        string memory domainName,
        string memory domainVersion
    ) OddexEscrow(token_, executor_) Ownable(operator) EIP712(domainName, domainVersion) {
        proxy = proxy_;
    }

    // ---- hashes ---------------------------------------------------------------------------------

    function orderHash(Order calldata o) public pure returns (bytes32) {
        return keccak256(
            abi.encodePacked(
                o.marketHash, o.baseToken, o.totalBetSize, o.percentageOdds, o.expiry, o.salt, o.maker, o.executor,
                o.isMakerBettingOutcomeOne
            )
        );
    }

    /// @notice The EIP-712 digest the taker signed: the exchange's fill hash.
    function fillHash(Fill calldata f) public view returns (bytes32) {
        bytes32 fills = keccak256(
            abi.encode(
                FILL_OBJECT_TYPEHASH,
                keccak256(bytes(Strings.toString(f.stakeWei))),
                keccak256(bytes(f.market)),
                keccak256(bytes(f.baseToken)),
                keccak256(bytes(Strings.toString(f.desiredOdds))),
                f.oddsSlippage,
                f.isTakerBettingOutcomeOne,
                f.fillSalt,
                address(0),
                uint8(0),
                f.cashOutTarget
            )
        );
        bytes32 details = keccak256(
            abi.encode(
                DETAILS_TYPEHASH, NOT_APPLICABLE, keccak256(bytes(f.market)), NOT_APPLICABLE, NOT_APPLICABLE,
                NOT_APPLICABLE, NOT_APPLICABLE, fills
            )
        );
        return _hashTypedDataV4(details);
    }

    // ---- makers ---------------------------------------------------------------------------------

    /// @notice A maker stops their own order on chain, without asking the operator.
    function cancelOrder(Order calldata o) external {
        if (msg.sender != o.maker) revert NotMaker(msg.sender);
        bytes32 h = orderHash(o);
        cancelled[h] = true;
        emit OrderCancelled(h, o.maker);
    }

    // ---- fills ----------------------------------------------------------------------------------

    /// @notice Settles one fill; reverts with the reason if anything does not hold.
    function settleFill(Fill calldata f) external onlyExecutor {
        _settle(f);
    }

    /// @notice Settles many fills in one transaction. A fill that fails is skipped with FillFailed and its revert
    /// data; the others still settle.
    function settleFills(Fill[] calldata fills) external onlyExecutor {
        for (uint256 i = 0; i < fills.length; i++) {
            try this.settleOneForBatch(fills[i]) {}
            catch (bytes memory reason) {
                emit FillFailed(fillHash(fills[i]), reason);
            }
        }
    }

    /// @dev Only this contract calls it, from settleFills, so that one fill's revert is caught alone.
    function settleOneForBatch(Fill calldata f) external {
        if (msg.sender != address(this)) revert OnlySelf();
        _settle(f);
    }

    function _settle(Fill calldata f) private {
        if (f.matches.length == 0) revert NoMatches();
        bytes32 hash = fillHash(f);
        if (fillSettled[hash]) revert FillAlreadySettled(hash);
        if (fillSaltUsed[f.fillSalt]) revert FillSaltUsed(f.fillSalt);
        if (ECDSA.recover(hash, f.takerSig) != f.taker) revert BadTakerSignature(hash);
        if (f.oddsSlippage > 100) revert BadSlippage(f.oddsSlippage);
        bytes32 market = f.matches[0].order.marketHash;
        if (!_sameHex(f.market, Strings.toHexString(uint256(market), 32))) revert MarketMismatch();
        if (!_sameHex(f.baseToken, Strings.toHexString(address(token)))) revert BaseTokenMismatch();
        if (reported[market]) revert MarketReported(market);
        if (reported[f.legs[0]]) revert MarketReported(f.legs[0]);
        if (reported[f.legs[1]]) revert MarketReported(f.legs[1]);
        fillSettled[hash] = true;
        fillSaltUsed[f.fillSalt] = true;
        bool cashOut = f.cashOutTarget != bytes32(0);
        uint256 hedgeNeeds = cashOut ? _hedgeNeeds(f, market) : 0;

        uint256 takerTotal;
        uint256 makerTotal;
        // Slippage bounds the stake-weighted average taker odds of the fill, not each match (as the exchange matches).
        uint256 weightedTakerOdds;
        for (uint256 i = 0; i < f.matches.length; i++) {
            uint256 makerStake = _checkMatch(f, f.matches[i], market);
            takerTotal += f.matches[i].takerStake;
            makerTotal += makerStake;
            weightedTakerOdds += f.matches[i].takerStake * (ODDS_SCALE - f.matches[i].order.percentageOdds);
            _creditPair(f, f.matches[i].order, makerStake, f.matches[i].takerStake);
            proxy.transferFrom(token, f.matches[i].order.maker, address(this), makerStake);
        }
        if (takerTotal > f.stakeWei) revert StakeAboveSigned(takerTotal, f.stakeWei);
        uint256 minTakerOdds = (f.desiredOdds * (100 - f.oddsSlippage)) / 100;
        if (weightedTakerOdds < minTakerOdds * takerTotal) {
            revert AverageOddsBelowSlippage(weightedTakerOdds / takerTotal, minTakerOdds);
        }
        proxy.transferFrom(token, f.taker, address(this), takerTotal);
        emit FillSettled(hash, f.taker, market, takerTotal, makerTotal);
        if (cashOut) {
            // A hedge returning more than the position needs would open a position on the other side instead.
            if (takerTotal + makerTotal > hedgeNeeds) revert CashOutTooLarge(takerTotal + makerTotal, hedgeNeeds);
            (uint256 amount, uint256 fee) = _cashOut(market, f.taker, takerTotal);
            emit CashedOut(hash, f.taker, market, amount, fee);
        }
    }

    /// @dev What a cash-out fill must hedge, checked before its matches are credited as the exchange checks it: the
    /// taker's position in the fill's own market (a quarter line's positions are on its legs), no refund paid on it,
    /// not flat, and the fill backs the outcome paying less. Returns the return (stakes matched) that evens it.
    function _hedgeNeeds(Fill calldata f, bytes32 market) private view returns (uint256) {
        if (f.cashOutTarget != market) revert BadCashOutTarget(f.cashOutTarget);
        Position storage p = positions[market][f.taker];
        if (p.stakeOne + p.stakeTwo == 0) revert NoPosition(market, f.taker);
        if (p.refunded > 0) revert CashOutAfterRefund(market, f.taker);
        if (p.winOne == p.winTwo) revert NothingToCashOut(market, f.taker);
        if (f.isTakerBettingOutcomeOne != (p.winOne < p.winTwo)) revert CashOutWrongSide(market, f.taker);
        return p.winOne < p.winTwo ? p.winTwo - p.winOne : p.winOne - p.winTwo;
    }

    /// @dev Checks one maker order against the fill and books its maker stake; returns that stake.
    function _checkMatch(Fill calldata f, Match calldata m, bytes32 market) private returns (uint256 makerStake) {
        Order calldata o = m.order;
        bytes32 h = orderHash(o);
        if (o.marketHash != market) revert MarketMismatch();
        if (o.baseToken != address(token)) revert BaseTokenMismatch();
        if (o.executor != executor) revert ExecutorMismatch(h);
        if (o.maker == f.taker) revert SelfMatch(h);
        if (o.isMakerBettingOutcomeOne == f.isTakerBettingOutcomeOne) revert SameSide(h);
        if (ECDSA.recover(MessageHashUtils.toEthSignedMessageHash(h), m.makerSig) != o.maker) revert BadMakerSignature(h);
        if (o.expiry <= block.timestamp) revert OrderExpired(h);
        if (cancelled[h]) revert OrderIsCancelled(h);
        if (o.percentageOdds == 0 || o.percentageOdds >= ODDS_SCALE) revert BadOdds(h);
        makerStake = (m.takerStake * o.percentageOdds) / (ODDS_SCALE - o.percentageOdds);
        if (makerStake == 0) revert ZeroStake(h);
        uint256 total = filled[h] + makerStake;
        if (total > o.totalBetSize) revert OrderOverfilled(h, total, o.totalBetSize);
        filled[h] = total;
    }

    /// @dev Books the maker's and the taker's side of one match; a quarter line books half on each leg.
    function _creditPair(Fill calldata f, Order calldata o, uint256 makerStake, uint256 takerStake) private {
        if (f.legs[0] == bytes32(0)) {
            _credit(o.marketHash, o.maker, o.isMakerBettingOutcomeOne, makerStake, takerStake);
            _credit(o.marketHash, f.taker, f.isTakerBettingOutcomeOne, takerStake, makerStake);
            return;
        }
        // The lower line's leg takes the odd wei, as the exchange splits it.
        uint256 makerHigh = makerStake / 2;
        uint256 takerHigh = takerStake / 2;
        _credit(f.legs[0], o.maker, o.isMakerBettingOutcomeOne, makerStake - makerHigh, takerStake - takerHigh);
        _credit(f.legs[0], f.taker, f.isTakerBettingOutcomeOne, takerStake - takerHigh, makerStake - makerHigh);
        _credit(f.legs[1], o.maker, o.isMakerBettingOutcomeOne, makerHigh, takerHigh);
        _credit(f.legs[1], f.taker, f.isTakerBettingOutcomeOne, takerHigh, makerHigh);
    }

    /// @dev Whether a signed hex string names the same value as our lower-case hex (addresses may be checksummed).
    function _sameHex(string calldata signed, string memory canonical) private pure returns (bool) {
        bytes calldata a = bytes(signed);
        bytes memory b = bytes(canonical);
        if (a.length != b.length) return false;
        for (uint256 i = 0; i < a.length; i++) {
            bytes1 c = a[i];
            if (c >= "A" && c <= "F") c = bytes1(uint8(c) + 32);
            if (c != b[i]) return false;
        }
        return true;
    }
}
