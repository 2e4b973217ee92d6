# Functions for the scenarios of tests/proxies/tls.bats, sourced inside tests/helpers/netns.sh
# (network and mount namespaces of the test's own, loopback only).

# tls_certs: in $T/pki, an upstream CA (up-ca) with a server certificate for a.test,
# b.test and 127.0.0.1 (srv), another CA nobody trusts (rogue-ca) with its own server
# certificate (rogue), and a CA pair for termination (mitm-ca). Made with openssl(1).
tls_certs() {
	local d="$T/pki" n
	mkdir -p "$d"
	for n in up-ca rogue-ca mitm-ca; do
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		    -keyout "$d/$n.key" -out "$d/$n.pem" -days 2 -subj "/CN=$n" \
		    -addext basicConstraints=critical,CA:TRUE \
		    -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null || die "ca $n"
	done
	printf 'subjectAltName=DNS:a.test,DNS:b.test,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >"$d/ext.cnf"
	for n in srv:up-ca rogue:rogue-ca; do
		openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		    -keyout "$d/${n%%:*}.key" -out "$d/${n%%:*}.csr" -subj /CN=a.test 2>/dev/null &&
		openssl x509 -req -in "$d/${n%%:*}.csr" -CA "$d/${n#*:}.pem" \
		    -CAkey "$d/${n#*:}.key" -CAcreateserial -out "$d/${n%%:*}.pem" -days 2 \
		    -extfile "$d/ext.cnf" 2>/dev/null || die "cert ${n%%:*}"
	done
}

# nginx_tls: nginx on 127.0.0.1:8443 (srv certificate) and 127.0.0.1:9443 (rogue), and
# plain HTTP on 127.0.0.1:8080; www in $T/www; every request logged to $T/nginx.log as
# "host method uri status request_length added=X-Added auth=Authorization".
nginx_tls() {
	mkdir -p "$T/www" "$T/nginx-tmp"
	[ -f "$T/www/index.html" ] || echo hello >"$T/www/index.html"
	cat >"$T/nginx.conf" <<NGX
user root; worker_processes 1; daemon off; pid $T/nginx.pid; error_log $T/nginx.err;
events { worker_connections 512; }
http {
  log_format t '\$host \$request_method \$request_uri \$status \$request_length added=\$http_x_added auth=\$http_authorization';
  access_log $T/nginx.log t;
  client_body_temp_path $T/nginx-tmp; client_max_body_size 64m;
  proxy_temp_path $T/nginx-tmp; fastcgi_temp_path $T/nginx-tmp; uwsgi_temp_path $T/nginx-tmp; scgi_temp_path $T/nginx-tmp;
  server {
    listen 127.0.0.1:8443 ssl; listen 127.0.0.1:8080;
    ssl_certificate $T/pki/srv.pem; ssl_certificate_key $T/pki/srv.key;
    root $T/www;
    location /hdr { add_header Set-Cookie secret=1; add_header X-Other keep; return 200 "host=\$host\n"; }
    location /up/ { dav_methods PUT; create_full_put_path on; }
  }
  server {
    listen 127.0.0.1:9443 ssl default_server;
    ssl_certificate $T/pki/rogue.pem; ssl_certificate_key $T/pki/rogue.key; return 200 "rogue\n";
  }
}
NGX
	nginx -c "$T/nginx.conf" -p "$T" 2>>"$T/servers.err" &
	pids+=($!)
	wait_port 8443
	wait_port 8080
}
