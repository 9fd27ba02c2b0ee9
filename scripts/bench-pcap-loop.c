/* The floor for scripts/bench: read every packet of a capture with libpcap and count packets and
 * captured bytes, nothing else.   cc -O2 -o bench-pcap-loop bench-pcap-loop.c -lpcap */
#include <pcap/pcap.h>
#include <stdio.h>

int main(int argc, char **argv) {
    char err[PCAP_ERRBUF_SIZE];
    if (argc != 2) { fprintf(stderr, "usage: %s FILE\n", argv[0]); return 64; }
    pcap_t *p = pcap_open_offline(argv[1], err);
    if (!p) { fprintf(stderr, "%s\n", err); return 1; }
    struct pcap_pkthdr *h;
    const u_char *data;
    unsigned long long packets = 0, bytes = 0, sum = 0;
    int rc;
    while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
        packets++;
        bytes += h->caplen;
        if (h->caplen) sum += data[h->caplen - 1]; /* touch the packet data */
    }
    if (rc == PCAP_ERROR) { fprintf(stderr, "%s\n", pcap_geterr(p)); return 2; }
    printf("%llu packets %llu bytes (%llu)\n", packets, bytes, sum);
    pcap_close(p);
    return 0;
}
