// The records the page shows: the typed client's (amounts and odds as bigint), plus the operator's account view.
export type {
  AccountView,
  Balance,
  BestOdds,
  CancelResult,
  DemoFundsOffer,
  Fixture,
  FillResult,
  League,
  LiveScore,
  Market,
  Metadata,
  Order,
  RefundGroup,
  SearchResult,
  Sport,
  Trade,
} from '@oddex/sdk';
