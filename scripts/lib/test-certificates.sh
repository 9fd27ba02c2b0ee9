# Throwaway certificates for the nginx template (scripts/lib/nginx.conf.in), made fresh for every run
# in DIR (the template reads @RUN@/tls): cert.pem/key.pem, P-256 ECDSA for www/cdn/edge/far.wt.test
# (every TLS port but one), and rsa-cert.pem/rsa-key.pem, RSA-2048 for the RSA and ECDHE-RSA suites
# (tls-ciphers' port 4437). ca-all.pem holds both, for clients that talk to every port.
#   make_test_certificates DIR DAYS
make_test_certificates() {
    local dir=$1 days=$2
    mkdir -p "$dir"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days "$days" \
        -keyout "$dir/key.pem" -out "$dir/cert.pem" -subj /CN=www.wt.test \
        -addext subjectAltName=DNS:www.wt.test,DNS:cdn.wt.test,DNS:edge.wt.test,DNS:far.wt.test 2>/dev/null
    openssl req -x509 -newkey rsa:2048 -nodes -days "$days" \
        -keyout "$dir/rsa-key.pem" -out "$dir/rsa-cert.pem" -subj /CN=www.wt.test \
        -addext subjectAltName=DNS:www.wt.test,DNS:far.wt.test 2>/dev/null
    cat "$dir/cert.pem" "$dir/rsa-cert.pem" > "$dir/ca-all.pem"
}
