set terminal pngcairo size 900,560 noenhanced
set output '/root/.cache/iommu-scale/results/20261205-012713-native/throughput-native.png'
set title 'commands per issuing thread per second, native harness'
set xlabel 'threads'; set ylabel 'commands per thread per second (median, min-max)'
set logscale x 2; set key top right; set grid; set yrange [0:*]; set offsets graph 0.05, graph 0.05, 0, 0
plot '/root/.cache/iommu-scale/results/20261205-012713-native/plot-native-base.dat' using 3:12:13:14 with yerrorlines title 'base', '/root/.cache/iommu-scale/results/20261205-012713-native/plot-native-cmdq-mainline-fixes.dat' using 3:12:13:14 with yerrorlines title 'cmdq-mainline-fixes', '/root/.cache/iommu-scale/results/20261205-012713-native/plot-native-series.dat' using 3:12:13:14 with yerrorlines title 'series', '/root/.cache/iommu-scale/results/20261205-012713-native/plot-native-base-aa.dat' using 3:12:13:14 with yerrorlines title 'base-aa'
