set terminal pngcairo size 900,560 noenhanced
set output 'results/2026-11-29-s0-s4-historic-smp2/throughput-lazy.png'
set title 'map+unmap per CPU per second, lazy, granule 1'
set xlabel 'threads'; set ylabel 'per CPU per second (median, min-max)'
set logscale x 2; set key top right; set grid; set yrange [0:*]; set offsets graph 0.05, graph 0.05, 0, 0
plot 'results/2026-11-29-s0-s4-historic-smp2/plot-lazy-base.dat' using 3:12:13:14 with yerrorlines title 'base', 'results/2026-11-29-s0-s4-historic-smp2/plot-lazy-s0-group-refcount.dat' using 3:12:13:14 with yerrorlines title 's0-group-refcount', 'results/2026-11-29-s0-s4-historic-smp2/plot-lazy-s4-pgtable-lock.dat' using 3:12:13:14 with yerrorlines title 's4-pgtable-lock'
set output 'results/2026-11-29-s0-s4-historic-smp2/unmap-latency-lazy.png'
set title 'unmap latency against granule, lazy, 1 thread(s)'
set xlabel 'granule (pages)'; set ylabel 'unmap latency, us (median, min-max)'; set yrange [0:*]
plot 'results/2026-11-29-s0-s4-historic-smp2/plotg-lazy-base.dat' using 2:9:10:11 with yerrorlines title 'base', 'results/2026-11-29-s0-s4-historic-smp2/plotg-lazy-s0-group-refcount.dat' using 2:9:10:11 with yerrorlines title 's0-group-refcount', 'results/2026-11-29-s0-s4-historic-smp2/plotg-lazy-s4-pgtable-lock.dat' using 2:9:10:11 with yerrorlines title 's4-pgtable-lock'
