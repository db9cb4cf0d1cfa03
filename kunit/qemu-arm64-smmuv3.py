# SPDX-License-Identifier: GPL-2.0
# kunit.py qemu config: arm64 'virt' with an SMMUv3 (iommu=smmuv3), so that
# the arm-smmu-v3 driver probes a real (emulated) SMMU while the suites run.
# Used by tools/gates/kunit for KUNIT_ARCH=arm64.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='arm64',
			   kconfig='''
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y''',
			   qemu_arch='aarch64',
			   kernel_path='arch/arm64/boot/Image.gz',
			   kernel_command_line='console=ttyAMA0',
			   extra_qemu_params=['-machine', 'virt,iommu=smmuv3', '-cpu', 'max', '-smp', '4'])
