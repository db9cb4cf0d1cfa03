set terminal pngcairo size 900,560 noenhanced
set output '/root/.cache/iommu-scale/results/20261203-173212/throughput-strict.png'
set title 'map+unmap per CPU per second, strict, granule 32'
set xlabel 'threads'; set ylabel 'per CPU per second (median, min-max)'
set logscale x 2; set key top right; set grid; set yrange [0:*]; set offsets graph 0.05, graph 0.05, 0, 0
plot '/root/.cache/iommu-scale/results/20261203-173212/plot-strict-base.dat' using 3:12:13:14 with yerrorlines title 'base', '/root/.cache/iommu-scale/results/20261203-173212/plot-strict-base-aa.dat' using 3:12:13:14 with yerrorlines title 'base-aa', '/root/.cache/iommu-scale/results/20261203-173212/plot-strict-iova-classes.dat' using 3:12:13:14 with yerrorlines title 'iova-classes', '/root/.cache/iommu-scale/results/20261203-173212/plot-strict-rcache9.dat' using 3:12:13:14 with yerrorlines title 'rcache9'
set output '/root/.cache/iommu-scale/results/20261203-173212/unmap-latency-strict.png'
set title 'unmap latency against granule, strict, 1 thread(s)'
set xlabel 'granule (pages)'; set ylabel 'unmap latency, us (median, min-max)'; set yrange [0:*]
plot '/root/.cache/iommu-scale/results/20261203-173212/plotg-strict-base.dat' using 2:9:10:11 with yerrorlines title 'base', '/root/.cache/iommu-scale/results/20261203-173212/plotg-strict-base-aa.dat' using 2:9:10:11 with yerrorlines title 'base-aa', '/root/.cache/iommu-scale/results/20261203-173212/plotg-strict-iova-classes.dat' using 2:9:10:11 with yerrorlines title 'iova-classes', '/root/.cache/iommu-scale/results/20261203-173212/plotg-strict-rcache9.dat' using 2:9:10:11 with yerrorlines title 'rcache9'
