set terminal pngcairo size 900,560 noenhanced
set output '/root/.cache/iommu-scale/results/20261203-173212/throughput-lazy.png'
set title 'map+unmap per CPU per second, lazy, granule 32'
set xlabel 'threads'; set ylabel 'per CPU per second (median, min-max)'
set logscale x 2; set key top right; set grid; set yrange [0:*]; set offsets graph 0.05, graph 0.05, 0, 0
plot '/root/.cache/iommu-scale/results/20261203-173212/plot-lazy-base.dat' using 3:12:13:14 with yerrorlines title 'base', '/root/.cache/iommu-scale/results/20261203-173212/plot-lazy-base-aa.dat' using 3:12:13:14 with yerrorlines title 'base-aa', '/root/.cache/iommu-scale/results/20261203-173212/plot-lazy-iova-classes.dat' using 3:12:13:14 with yerrorlines title 'iova-classes', '/root/.cache/iommu-scale/results/20261203-173212/plot-lazy-rcache9.dat' using 3:12:13:14 with yerrorlines title 'rcache9'
set output '/root/.cache/iommu-scale/results/20261203-173212/unmap-latency-lazy.png'
set title 'unmap latency against granule, lazy, 1 thread(s)'
set xlabel 'granule (pages)'; set ylabel 'unmap latency, us (median, min-max)'; set yrange [0:*]
plot '/root/.cache/iommu-scale/results/20261203-173212/plotg-lazy-base.dat' using 2:9:10:11 with yerrorlines title 'base', '/root/.cache/iommu-scale/results/20261203-173212/plotg-lazy-base-aa.dat' using 2:9:10:11 with yerrorlines title 'base-aa', '/root/.cache/iommu-scale/results/20261203-173212/plotg-lazy-iova-classes.dat' using 2:9:10:11 with yerrorlines title 'iova-classes', '/root/.cache/iommu-scale/results/20261203-173212/plotg-lazy-rcache9.dat' using 2:9:10:11 with yerrorlines title 'rcache9'
