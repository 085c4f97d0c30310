// A market's price history (GET /markets/:marketHash/history) as a candlestick chart of outcome one's traded
// implied probability, read again whenever recent_trades:global publishes a trade of the market.
import { useEffect, useRef, useState } from 'react';
import { CandlestickSeries, createChart, type IChartApi, type ISeriesApi, type UTCTimestamp } from 'lightweight-charts';
import type { OddexRealtime } from '@oddex/sdk';
import { exchange } from '../api/exchange';
import type { Candle, CandleInterval, Market, Trade } from '../api/types';
import { ODDS_SCALE, impliedPercent } from '../format';
import { useChannelRefresh } from '../realtime/live-data';
import { ErrorBox, useLoad } from './status';

const INTERVALS: CandleInterval[] = ['1m', '5m', '1h', '1d'];

/** 10^20-scaled odds as a percentage number for the chart's price axis. */
const percent = (p: bigint) => Number((p * 1_000_000n) / ODDS_SCALE) / 10_000;

const point = (c: Candle) => ({ time: c.time as UTCTimestamp, open: percent(c.open), high: percent(c.high), low: percent(c.low), close: percent(c.close) });

/** The chart itself: created once per mount, given new candles as they load. */
function Candles({ candles }: { candles: Candle[] }) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<{ api: IChartApi; series: ISeriesApi<'Candlestick'> } | undefined>(undefined);
  useEffect(() => {
    if (!box.current) return;
    const api = createChart(box.current, {
      autoSize: true,
      layout: { background: { color: 'transparent' }, textColor: '#5d6d7e' },
      grid: { vertLines: { color: '#eef1f4' }, horzLines: { color: '#eef1f4' } },
      timeScale: { timeVisible: true, secondsVisible: false },
    });
    const series = api.addSeries(CandlestickSeries, { priceFormat: { type: 'custom', formatter: (v: number) => `${v.toFixed(2)}%`, minMove: 0.01 } });
    chart.current = { api, series };
    return () => {
      chart.current = undefined;
      api.remove();
    };
  }, []);
  useEffect(() => {
    const c = chart.current;
    if (!c) return;
    c.series.setData(candles.map(point));
    c.api.timeScale().fitContent();
  }, [candles]);
  return <div ref={box} className="price-chart" />;
}

export function PriceChart({ market, realtime }: { market: Market; realtime: OddexRealtime | undefined }) {
  const [width, setWidth] = useState<CandleInterval>('5m');
  const history = useLoad(() => exchange.priceHistory(market.marketHash, width), `${market.marketHash}:${width}`);
  useChannelRefresh<Trade | Trade[]>(
    realtime,
    'recent_trades:global',
    (d) => [d].flat().some((t) => (t.quarterLineParentMarketHash ?? t.marketHash) === market.marketHash),
    history.reload,
  );
  const candles = history.data ?? [];
  const last = candles.at(-1);
  return (
    <section className="card" aria-label="Price history" data-candles={candles.length} data-last-close={last?.close.toString() ?? ''}>
      <h2>Price history</h2>
      <div className="toggle" role="group" aria-label="Candle interval">
        {INTERVALS.map((i) => (
          <button key={i} aria-pressed={width === i} onClick={() => setWidth(i)}>
            {i}
          </button>
        ))}
      </div>
      <p className="muted">
        {market.outcomeOneName}, implied probability as traded
        {last ? ` · last ${impliedPercent(last.close)} · ${candles.length} ${candles.length === 1 ? 'candle' : 'candles'}` : ' · no trade yet'}
      </p>
      {history.error ? <ErrorBox error={history.error} /> : <Candles candles={candles} />}
    </section>
  );
}
