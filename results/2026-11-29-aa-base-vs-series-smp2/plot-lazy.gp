set terminal pngcairo size 900,560 noenhanced
set output 'results/2026-11-29-aa-base-vs-series-smp2/throughput-lazy.png'
set title 'map+unmap per CPU per second, lazy, granule 1'
set xlabel 'threads'; set ylabel 'per CPU per second (median, min-max)'
set logscale x 2; set key top right; set grid; set yrange [0:*]; set offsets graph 0.05, graph 0.05, 0, 0
plot 'results/2026-11-29-aa-base-vs-series-smp2/plot-lazy-base.dat' using 3:12:13:14 with yerrorlines title 'base', 'results/2026-11-29-aa-base-vs-series-smp2/plot-lazy-series.dat' using 3:12:13:14 with yerrorlines title 'series'
set output 'results/2026-11-29-aa-base-vs-series-smp2/unmap-latency-lazy.png'
set title 'unmap latency against granule, lazy, 1 thread(s)'
set xlabel 'granule (pages)'; set ylabel 'unmap latency, us (median, min-max)'; set yrange [0:*]
plot 'results/2026-11-29-aa-base-vs-series-smp2/plotg-lazy-base.dat' using 2:9:10:11 with yerrorlines title 'base', 'results/2026-11-29-aa-base-vs-series-smp2/plotg-lazy-series.dat' using 2:9:10:11 with yerrorlines title 'series'
