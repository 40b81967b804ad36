/* The host arithmetic of the accelerator layer (hpcprobe/device.h), the same with or
 * without CUDA: nominal bandwidths from clocks and links, and the PCIe link from sysfs. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#include "hpcprobe/device.h"

double hpcp_device_nominal_bandwidth(const struct hpcp_device_info *info)
{
    if (info->memory_clock_hz <= 0 || info->bus_width_bits <= 0)
        return 0;
    return 2.0 * info->memory_clock_hz * info->bus_width_bits / 8.0;
}

double hpcp_pcie_bandwidth(double transfer_rate, int width)
{
    if (transfer_rate <= 0 || width <= 0)
        return 0;
    double code = transfer_rate < 8e9 ? 8.0 / 10.0 : 128.0 / 130.0;
    return transfer_rate * width * code / 8.0;
}

/* The first number of sysfs file `name` of the device, or -1. */
static double sysfs_number(const char *root, const char *id, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/bus/pci/devices/%s/%s", root, id, name);
    FILE *f = fopen(path, "r");
    double v = -1;
    if (f) {
        if (fscanf(f, "%lf", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

int hpcp_pcie_link(const char *sysfs_root, const char *bus_id, double *transfer_rate, int *width)
{
    char id[32];
    size_t i = 0;
    for (; bus_id[i] && i + 1 < sizeof id; i++)
        id[i] = (char)tolower((unsigned char)bus_id[i]);
    id[i] = '\0';
    *transfer_rate = 0, *width = 0;
    /* current_link_speed reads "32.0 GT/s PCIe"; current_link_width "16" */
    double gts = sysfs_number(sysfs_root, id, "current_link_speed");
    double lanes = sysfs_number(sysfs_root, id, "current_link_width");
    if (gts <= 0 || lanes <= 0)
        return -1;
    *transfer_rate = gts * 1e9, *width = (int)lanes;
    return 0;
}
