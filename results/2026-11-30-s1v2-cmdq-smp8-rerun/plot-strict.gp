set terminal pngcairo size 900,560 noenhanced
set output '/root/.cache/iommu-scale/results/20261130-133753/throughput-strict.png'
set title 'map+unmap per CPU per second, strict, granule 1'
set xlabel 'threads'; set ylabel 'per CPU per second (median, min-max)'
set logscale x 2; set key top right; set grid; set yrange [0:*]; set offsets graph 0.05, graph 0.05, 0, 0
plot '/root/.cache/iommu-scale/results/20261130-133753/plot-strict-base.dat' using 3:12:13:14 with yerrorlines title 'base', '/root/.cache/iommu-scale/results/20261130-133753/plot-strict-series.dat' using 3:12:13:14 with yerrorlines title 'series', '/root/.cache/iommu-scale/results/20261130-133753/plot-strict-cmdq-v2-cmpxchg.dat' using 3:12:13:14 with yerrorlines title 'cmdq-v2-cmpxchg'
set output '/root/.cache/iommu-scale/results/20261130-133753/unmap-latency-strict.png'
set title 'unmap latency against granule, strict, 4 thread(s)'
set xlabel 'granule (pages)'; set ylabel 'unmap latency, us (median, min-max)'; set yrange [0:*]
plot '/root/.cache/iommu-scale/results/20261130-133753/plotg-strict-base.dat' using 2:9:10:11 with yerrorlines title 'base', '/root/.cache/iommu-scale/results/20261130-133753/plotg-strict-series.dat' using 2:9:10:11 with yerrorlines title 'series', '/root/.cache/iommu-scale/results/20261130-133753/plotg-strict-cmdq-v2-cmpxchg.dat' using 2:9:10:11 with yerrorlines title 'cmdq-v2-cmpxchg'
