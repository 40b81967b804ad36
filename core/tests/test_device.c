/* The accelerator layer's host side (hpcprobe/device.h), which runs the same with or
 * without CUDA: nominal bandwidths from clocks and links, the PCIe link from a fake
 * sysfs tree, the refusal where no device can be had, and the MPI's own word on device
 * buffers. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "hpcprobe/device.h"

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fabs(b);
}

static void nominal_bandwidth(void)
{
    struct hpcp_device_info d;
    memset(&d, 0, sizeof d);
    /* H200: HBM3e at 3.1335 GHz on a 6144-bit bus, two transfers per clock */
    d.memory_clock_hz = 3.1335e9, d.bus_width_bits = 6144;
    CHECK(near(hpcp_device_nominal_bandwidth(&d), 2 * 3.1335e9 * 768));
    d.bus_width_bits = 0; /* unknown stays unknown, never a default */
    CHECK(hpcp_device_nominal_bandwidth(&d) == 0);
    d.bus_width_bits = 6144, d.memory_clock_hz = 0;
    CHECK(hpcp_device_nominal_bandwidth(&d) == 0);
}

static void pcie_bandwidth(void)
{
    CHECK(near(hpcp_pcie_bandwidth(32e9, 16), 32e9 * 16 * 128.0 / 130.0 / 8)); /* gen5 x16 */
    CHECK(fabs(hpcp_pcie_bandwidth(32e9, 16) - 63.0e9) < 0.1e9);
    CHECK(near(hpcp_pcie_bandwidth(8e9, 16), 8e9 * 16 * 128.0 / 130.0 / 8));   /* gen3 */
    CHECK(near(hpcp_pcie_bandwidth(5e9, 8), 5e9 * 8 * 0.8 / 8));               /* gen2: 8b/10b */
    CHECK(hpcp_pcie_bandwidth(0, 16) == 0 && hpcp_pcie_bandwidth(32e9, 0) == 0);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* A fake /sys with one device's link; the bus id comes in CUDA's upper case. */
static void pcie_link_from_sysfs(void)
{
    char root[] = "/tmp/hpcp-sysfs-XXXXXX", path[512];
    CHECK(mkdtemp(root) != NULL);
    const char *parts[] = {"bus", "bus/pci", "bus/pci/devices", "bus/pci/devices/0000:4a:00.0"};
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", root, parts[i]);
        CHECK(mkdir(path, 0700) == 0);
    }
    snprintf(path, sizeof path, "%s/%s/current_link_speed", root, parts[3]);
    write_file(path, "32.0 GT/s PCIe\n");
    char width[512];
    snprintf(width, sizeof width, "%s/%s/current_link_width", root, parts[3]);
    write_file(width, "16\n");
    double rate = 0;
    int lanes = 0;
    CHECK(hpcp_pcie_link(root, "0000:4A:00.0", &rate, &lanes) == 0);
    CHECK(rate == 32e9 && lanes == 16);
    CHECK(hpcp_pcie_link(root, "0000:99:00.0", &rate, &lanes) == -1);
    CHECK(rate == 0 && lanes == 0); /* "unknown", never a guess */
    unlink(path), unlink(width);
    write_file(path, "Unknown\n"); /* what sysfs says of a link it cannot read */
    CHECK(hpcp_pcie_link(root, "0000:4a:00.0", &rate, &lanes) == -1);
    unlink(path);
    for (int i = 3; i >= 0; i--) {
        snprintf(path, sizeof path, "%s/%s", root, parts[i]);
        rmdir(path);
    }
    rmdir(root);
}

/* No device on the machines CI runs on: the count fails with a reason, and so does
 * every allocation; a GPU node would pass the first branch instead. */
static void no_device_is_one_line(void)
{
    char why[256] = "";
    int count = -1;
    if (hpcp_device_count(&count, why, sizeof why) == 0) {
        printf("test_device: %d device(s) found: the refusal path is not exercised here\n", count);
        CHECK(count >= 1);
        return;
    }
    CHECK(count == 0);
    CHECK(why[0] != '\0' && strchr(why, '\n') == NULL);
    CHECK(hpcp_device_alloc(1024) == NULL);
    printf("test_device: no device (%s), build %s\n", why, hpcp_device_build());
}

static void mpi_says_what_it_can(void)
{
    char how[128] = "";
    int aware = hpcp_mpi_device_aware(how, sizeof how);
    CHECK(aware == 0 || aware == 1 || aware == -1);
    CHECK(how[0] != '\0');
    CHECK(hpcp_mpi_device_aware(NULL, 0) == aware);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    nominal_bandwidth();
    pcie_bandwidth();
    pcie_link_from_sysfs();
    no_device_is_one_line();
    mpi_says_what_it_can();
    int rc = check_summary("test_device");
    MPI_Finalize();
    return rc;
}
