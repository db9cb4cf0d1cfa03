set terminal pngcairo size 900,560 noenhanced
set output '/root/.cache/iommu-scale/results/20261203-184040/throughput-lazy.png'
set title 'map+unmap per CPU per second, lazy, granule 64'
set xlabel 'threads'; set ylabel 'per CPU per second (median, min-max)'
set logscale x 2; set key top right; set grid; set yrange [0:*]; set offsets graph 0.05, graph 0.05, 0, 0
plot '/root/.cache/iommu-scale/results/20261203-184040/plot-lazy-iova-classes.dat' using 3:12:13:14 with yerrorlines title 'iova-classes'
set output '/root/.cache/iommu-scale/results/20261203-184040/unmap-latency-lazy.png'
set title 'unmap latency against granule, lazy, 16 thread(s)'
set xlabel 'granule (pages)'; set ylabel 'unmap latency, us (median, min-max)'; set yrange [0:*]
plot '/root/.cache/iommu-scale/results/20261203-184040/plotg-lazy-iova-classes.dat' using 2:9:10:11 with yerrorlines title 'iova-classes'
